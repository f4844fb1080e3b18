/**
 * The currencies a payment may be in: ISO 4217's active codes (list one, as amended to 2026), less
 * those that name no money a payment moves: funds codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW),
 * precious metals (XAG, XAU, XPD, XPT), bond units (XBA to XBD), drawing rights (XDR, XSU, XUA), and the
 * test and "no currency" codes (XTS, XXX). Withdrawn codes (ANG, BGN, CUC, HRK, SLL, ZWL) are gone too.
 */
export const PAYMENT_CURRENCIES: readonly string[] = Object.freeze(
  (
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD ' +
    'CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD ' +
    'GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD ' +
    'KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO ' +
    'NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE ' +
    'SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED VES VND ' +
    'VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG'
  ).split(' '),
);

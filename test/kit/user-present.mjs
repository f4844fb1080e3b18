// One place for what a request made with the user present carries, for the TypeScript tests, the bench
// and the soak alike.

/**
 * The headers of a request made with the user present, as a merchant's app sends them while the user
 * looks (their address): its sync or live read is not one of the bank's daily allowance of reads without
 * the user. Tests and load that read an account more often than a bank allows a day send them.
 */
export const USER_PRESENT = Object.freeze({ 'psu-ip-address': '203.0.113.7' });

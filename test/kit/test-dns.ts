import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';

const A = 1;
const AAAA = 28;

/**
 * A DNS server on a local UDP port answering A and AAAA queries from a table the test changes as it
 * goes (a name that rebinds), for the event endpoints' resolver (tuning `eventEndpointDnsPort`): the
 * network here has no DNS of its own. A name not in the table is NXDOMAIN.
 */
export class TestDns {
  readonly records = new Map<string, string[]>();
  private socket!: Socket;
  port = 0;

  async start(): Promise<this> {
    this.socket = createSocket('udp4');
    this.socket.on('message', (query, from) => {
      const answer = this.answer(query);
      if (answer) this.socket.send(answer, from.port, from.address);
    });
    await new Promise<void>((resolve) => this.socket.bind(0, '127.0.0.1', resolve));
    this.port = this.socket.address().port;
    return this;
  }

  /** `name` resolves to `addresses` from now on (IPv4 as A records, IPv6 as AAAA). */
  set(name: string, ...addresses: string[]): void {
    this.records.set(name.toLowerCase(), addresses);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private answer(query: Buffer): Buffer | undefined {
    if (query.length < 12) return undefined;
    const labels: string[] = [];
    let at = 12;
    while (at < query.length && query[at] !== 0) {
      labels.push(query.toString('latin1', at + 1, at + 1 + query[at]));
      at += 1 + query[at];
    }
    const questionEnd = at + 5;
    if (questionEnd > query.length) return undefined;
    const type = query.readUInt16BE(at + 1);
    const known = this.records.get(labels.join('.').toLowerCase());
    const family = type === A ? 4 : type === AAAA ? 6 : 0;
    const addresses = (known ?? []).filter((address) => isIP(address) === family);
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2); // an answer, recursion available; NXDOMAIN if unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const records = addresses.map((address) => {
      const data = family === 4 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the question's name
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(0, 6); // no caching: the test changes answers
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
  }
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [
    ...groups(head),
    ...Array<string>(address.includes('::') ? missing : 0).fill('0'),
    ...groups(tail),
  ];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}

/** Open connections, in total and per client address, against their caps. */
export class ConnectionCounter {
  private total = 0;
  private readonly perAddress = new Map<string, number>();

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerAddress: number,
  ) {}

  /** Counts a new connection from `address`; false (and not counted) when a cap is reached. */
  open(address: string): boolean {
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (this.total >= this.maxTotal || fromAddress >= this.maxPerAddress) return false;
    this.total++;
    this.perAddress.set(address, fromAddress + 1);
    return true;
  }

  /** Forgets a connection counted by open(). */
  close(address: string): void {
    this.total--;
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(address, left);
    else this.perAddress.delete(address);
  }
}

import { messageIdCandidates } from "@sms/smpp";

/**
 * Every form under which a carrier may quote the id it gave a segment: as given, its
 * decimal/hexadecimal twin (carriers answer submit_sm in one and quote receipts in the
 * other), and hexadecimal in either case. Sorted, because it is also the order in which
 * the advisory locks are taken: two transactions locking overlapping sets never deadlock.
 */
export function carrierIdForms(id: string): string[] {
  const forms = new Set<string>();
  for (const candidate of messageIdCandidates(id)) {
    forms.add(candidate);
    if (/^[0-9a-f]+$/i.test(candidate)) forms.add(candidate.toLowerCase()).add(candidate.toUpperCase());
  }
  forms.delete("");
  return [...forms].sort();
}

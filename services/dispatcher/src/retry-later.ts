/** Thrown to have the message tried again later (a delayed job with a growing back-off). */
export class RetryLater extends Error {
  override readonly name = "RetryLater";
}

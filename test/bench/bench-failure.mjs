/** A failure the bench reports as such (a message, not a stack): bad options, a failed request, … */
export class BenchFailure extends Error {
  name = 'BenchFailure';
}

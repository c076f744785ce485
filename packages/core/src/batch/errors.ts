/**
 * Errors of `POST /batch/v1`, as the core words them.
 */
import { declareErrors } from '@cms/rest'

export const batchErrors = declareErrors({
  rest_batch_not_allowed: { status: 400, message: 'The requested route does not support batch requests.' },
  parse_path_failed: { status: 400, message: 'Could not parse the path.' }
})

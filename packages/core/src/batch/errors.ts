/**
 * Errors of `POST /batch/v1`, as the core words them.
 */
import { declareErrors } from '@cms/rest'

export const batchErrors = declareErrors({
  rest_batch_not_allowed: { status: 400, message: 'The requested route does not support batch requests.' },
  parse_path_failed: { status: 400, message: 'Could not parse the path.' },
  rest_batch_request_failed: { status: 500, message: 'The request failed; nothing of it was written.' },
  rest_batch_commit_failed: { status: 500, message: 'The batch\'s transaction did not commit; nothing of this request was written.' }
})

/**
 * Errors of rollback/v1, declared once. Where the real product answers 200
 * with `success: false`, these are the 4xx the evident intent calls for
 * (CONVENTIONS.md §3).
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const rollbackErrors = {
  ...declareErrors({
    asset_not_found: { status: 404, message: 'Could not find installed plugin.' },
    archive_not_found: { status: 404, message: 'Archive not found.' },
    file_not_found: { status: 404, message: 'Archive file not found.' },
    rollback_package_missing: { status: 409, message: 'Package not found for rollback: run the download-asset step first.' },
    rollback_in_progress: { status: 409, message: 'Another rollback of this package is in progress; finish it or run its cleanup step.' },
    rollback_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' },
    rest_range_not_satisfiable: { status: 416, message: 'The requested range is not satisfiable.' }
  }),
  rest_forbidden: kernelErrors.rest_forbidden
}

/**
 * Errors of seo/v1, declared once, in the `{code, message, data: {status}}`
 * shape even where the real product answers `{"error": ...}` or HTTP 200
 * with `success: false` (CONVENTIONS.md §3).
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const seoErrors = {
  ...declareErrors({
    seo_error_indexing: { status: 500, message: 'The indexing failed.' },
    rest_invalid_content_type: { status: 400, message: 'The requested content type is not editable.' },
    seo_invalid_content_type: { status: 400, message: 'Invalid content type.' },
    seo_invalid_taxonomy: { status: 400, message: 'Invalid taxonomy.' },
    seo_term_needs_taxonomy: { status: 400, message: 'Term needs a provided taxonomy.' },
    seo_taxonomy_needs_term: { status: 400, message: 'Taxonomy needs a provided term.' },
    seo_invalid_term: { status: 400, message: 'Invalid term.' },
    seo_invalid_post_type: { status: 400, message: 'The post type asked is not valid' },
    rest_invalid_items: { status: 400, message: 'The items parameter must be an array.' },
    rest_no_items: { status: 400, message: 'No items to update.' },
    rest_too_many_items: { status: 400, message: 'At most 20 items can be updated at once.' },
    rest_invalid_item: { status: 400, message: 'Each item must be an object.' },
    rest_invalid_item_id: { status: 400, message: 'Each item needs an integer id.' },
    rest_no_fields_to_update: { status: 400, message: 'An item names none of the fields this route updates.' },
    rest_invalid_item_field: { status: 400, message: 'An item field is not a string.' },
    rest_post_invalid_id: { status: 404, message: 'Invalid post ID.' },
    seo_file_hosted_externally: { status: 404, message: 'Cannot get the size of the file because it is hosted externally.' },
    seo_file_size_unknown: { status: 404, message: 'Cannot get the size of the file because of unknown reasons.' },
    seo_error_validation: { status: 400, message: 'The source SEO plugin\'s data failed validation.' },
    rest_no_route: { status: 404, message: 'Requested importer not found.' },
    seo_invalid_logo: { status: 400, message: 'The logo is not a valid URL or image of this site.' },
    seo_invalid_user: { status: 400, message: 'The user does not exist.' },
    seo_cannot_edit_user: { status: 403, message: 'Sorry, you are not allowed to edit this user.' },
    seo_unknown_introduction: { status: 400, message: 'There is no introduction with this id.' },
    seo_no_valid_parameters: { status: 400, message: 'No valid parameters were passed.' },
    seo_invalid_post_type_name: { status: 400, message: 'There is no post type with this name.' },
    seo_invalid_taxonomy_name: { status: 400, message: 'There is no taxonomy with this name.' },
    seo_task_not_found: { status: 404, message: 'Task not found' },
    seo_task_failed: { status: 400, message: 'The task could not be completed.' },
    seo_invalid_workouts: { status: 400, message: 'The workouts\' state must be a JSON object.' },
    seo_invalid_tracked_action: { status: 400, message: 'The tracked action is invalid' },
    seo_ai_unauthorized: { status: 401, message: 'Unauthorized.' },
    seo_planner_forbidden: { status: 403, message: 'Sorry, you are not allowed to plan content of this post type.' },
    seo_token_empty: { status: 400, message: 'Token usage failed. Token is empty.' },
    seo_authentication_failed: { status: 401, message: 'Authentication failed: the service sent no access token.' },
    seo_account_limit_exceeded: { status: 400, message: 'Account limit exceeded' },
    seo_keyphrase_id_missing: { status: 400, message: 'keyphraseID names the tracked keyphrase to remove.' },
    seo_repository_not_found: { status: 404, message: 'Repository not found' },
    seo_repository_not_available: { status: 400, message: 'The repository is not available yet. Not all prerequisites have been met.' },
    // get_head's 404 carries the 404 page's head besides these (head.ts).
    seo_head_not_found: { status: 404, message: 'No page of this site has this URL.' }
  }),
  rest_invalid_param: kernelErrors.rest_invalid_param,
  rest_forbidden: kernelErrors.rest_forbidden
}

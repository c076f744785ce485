/**
 * Every error of the content routes, declared once. Statuses given here are
 * the defaults; permission errors are re-issued as 401/403 with `denied()`.
 */
import { declareErrors, kernelErrors } from '@cms/rest'
import { metaErrors } from '../platform/meta.js'

export { denied, invalidParam } from '@cms/rest'

export const contentErrors = {
  // Declared once in the kernel's catalogue, answered here too.
  rest_forbidden_context: kernelErrors.rest_forbidden_context,
  rest_cannot_edit: kernelErrors.rest_cannot_edit,
  rest_trash_not_supported: kernelErrors.rest_trash_not_supported,
  // Declared with the meta registry (platform/meta.ts), answered here too.
  rest_cannot_update: metaErrors.rest_cannot_update,
  ...declareErrors({
    rest_post_invalid_id: { status: 404, message: 'Invalid post ID.' },
    rest_post_exists: { status: 400, message: 'Cannot create existing post.' },
    rest_post_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' },
    rest_post_incorrect_password: { status: 403, message: 'Incorrect post password.' },
    rest_post_invalid_parent: { status: 404, message: 'Invalid post parent ID.' },
    rest_post_no_autosave: { status: 404, message: 'There is no autosave revision for this post.' },
    rest_cannot_create: { status: 401, message: 'Sorry, you are not allowed to create posts as this user.' },
    rest_cannot_edit_others: { status: 401, message: 'Sorry, you are not allowed to create posts as this user.' },
    rest_cannot_assign_sticky: { status: 401, message: 'Sorry, you are not allowed to make posts sticky.' },
    rest_cannot_assign_term: { status: 401, message: 'Sorry, you are not allowed to assign the provided terms.' },
    rest_cannot_publish: { status: 401, message: 'Sorry, you are not allowed to publish posts in this post type.' },
    rest_cannot_delete: { status: 401, message: 'Sorry, you are not allowed to delete this post.' },
    rest_cannot_read: { status: 401, message: 'Sorry, you are not allowed to view revisions of this post.' },
    rest_invalid_author: { status: 400, message: 'Invalid author ID.' },
    rest_invalid_field: { status: 400, message: 'A post can not be sticky and have a password.' },
    rest_invalid_featured_media: { status: 400, message: 'Invalid featured media ID.' },
    empty_content: { status: 400, message: 'Content, title, and excerpt are empty.' },
    rest_already_trashed: { status: 410, message: 'The post has already been deleted.' },
    rest_no_search_term_defined: { status: 400, message: 'You need to define a search term to order by relevance.' },
    rest_orderby_include_missing_include: { status: 400, message: 'You need to define an include parameter to order by include.' },
    rest_search_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' },
    rest_revision_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' },
    rest_revision_invalid_offset_number: { status: 400, message: 'The offset number requested is larger than or equal to the number of available revisions.' },
    rest_revision_parent_id_mismatch: { status: 404, message: 'The revision does not belong to the specified parent.' },
    // Terms.
    rest_term_invalid: { status: 404, message: 'Term does not exist.' },
    rest_term_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' },
    duplicate_term_slug: { status: 400, message: 'The slug is already in use by another term.' },
    term_exists: { status: 400, message: 'A term with the name provided already exists in this taxonomy.' },
    rest_taxonomy_not_hierarchical: { status: 400, message: 'Cannot set parent term, taxonomy is not hierarchical.' },
    rest_term_invalid_parent: { status: 400, message: 'Parent term does not exist.' },
    empty_term_name: { status: 400, message: 'A name is required for this term.' },
    // Types, statuses, taxonomies.
    rest_type_invalid: { status: 404, message: 'Invalid post type.' },
    rest_cannot_view: { status: 401, message: 'Sorry, you are not allowed to edit posts in this post type.' },
    rest_status_invalid: { status: 404, message: 'Invalid status.' },
    rest_cannot_read_status: { status: 401, message: 'Cannot view status.' },
    rest_taxonomy_invalid: { status: 404, message: 'Invalid taxonomy.' }
  })
}

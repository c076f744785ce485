/**
 * Every error of the comment routes, in the core's words. Statuses given
 * here are the defaults; permission errors are re-issued as 401/403 with
 * `denied()`.
 */
import { declareErrors, kernelErrors } from '@cms/rest'
import { contentErrors } from '../content/index.js'

export const commentErrors = {
  rest_forbidden_context: kernelErrors.rest_forbidden_context,
  rest_trash_not_supported: kernelErrors.rest_trash_not_supported,
  // A comment's post not found is the posts' own error.
  rest_post_invalid_id: contentErrors.rest_post_invalid_id,
  ...declareErrors({
    rest_comment_invalid_id: { status: 404, message: 'Invalid comment ID.' },
    rest_cannot_read: { status: 401, message: 'Sorry, you are not allowed to read this comment.' },
    rest_cannot_read_post: { status: 401, message: 'Sorry, you are not allowed to read the post for this comment.' },
    rest_forbidden_param: { status: 401, message: 'Query parameter not permitted.' },
    rest_comment_login_required: { status: 401, message: 'Sorry, you must be logged in to comment.' },
    rest_comment_invalid_author: { status: 401, message: "Sorry, you are not allowed to edit 'author' for comments." },
    rest_comment_invalid_author_ip: { status: 401, message: "Sorry, you are not allowed to edit 'author_ip' for comments." },
    rest_comment_invalid_status: { status: 401, message: "Sorry, you are not allowed to edit 'status' for comments." },
    rest_comment_invalid_post_id: { status: 403, message: 'Sorry, you are not allowed to create this comment without a post.' },
    rest_comment_draft_post: { status: 403, message: 'Sorry, you are not allowed to create a comment on this post.' },
    rest_comment_trash_post: { status: 403, message: 'Sorry, you are not allowed to create a comment on this post.' },
    rest_comment_closed: { status: 403, message: 'Sorry, comments are closed for this item.' },
    rest_comment_exists: { status: 400, message: 'Cannot create existing comment.' },
    rest_invalid_comment_type: { status: 400, message: 'Cannot create a comment with that type.' },
    rest_comment_invalid_type: { status: 404, message: 'Sorry, you are not allowed to change the comment type.' },
    rest_comment_content_invalid: { status: 400, message: 'Invalid comment content.' },
    rest_comment_author_invalid: { status: 400, message: 'Invalid comment author ID.' },
    rest_comment_author_data_required: { status: 400, message: 'Creating a comment requires valid author name and email values.' },
    rest_comment_invalid_parent: { status: 400, message: 'Invalid comment parent: it must be a comment on the same post, within the thread depth.' },
    comment_duplicate: { status: 409, message: 'Duplicate comment detected; it looks as though you’ve already said that!' },
    comment_flood: { status: 400, message: 'You are posting comments too quickly. Slow down.' },
    rest_cannot_edit: { status: 401, message: 'Sorry, you are not allowed to edit this comment.' },
    rest_cannot_delete: { status: 401, message: 'Sorry, you are not allowed to delete this comment.' },
    rest_already_trashed: { status: 410, message: 'The comment has already been trashed.' }
  })
}

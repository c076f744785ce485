/** Every error of the media routes, declared once (the post errors they share come from the content module). */
import { declareErrors } from '@cms/rest'

export const mediaErrors = declareErrors({
  rest_upload_no_data: { status: 400, message: 'No data supplied.' },
  rest_upload_no_content_type: { status: 400, message: 'No Content-Type supplied.' },
  rest_upload_no_content_disposition: { status: 400, message: 'No Content-Disposition supplied.' },
  rest_upload_invalid_disposition: {
    status: 400,
    message: 'Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename="image.png"` or similar.'
  },
  rest_upload_too_large: { status: 413, message: 'The file is larger than the upload limit.' },
  rest_upload_unknown_error: { status: 400, message: 'Sorry, you are not allowed to upload this file type.' },
  rest_upload_sniff_error: { status: 400, message: 'The file content is not of an allowed type, or does not match its name.' },
  rest_upload_image_error: { status: 400, message: 'The image cannot be read: it may be corrupt or truncated.' },
  rest_upload_image_too_large: { status: 413, message: 'The image has more pixels than this site processes.' },
  rest_cannot_create: { status: 401, message: 'Sorry, you are not allowed to upload media on this site.' },
  rest_cannot_edit: { status: 401, message: 'Sorry, you are not allowed to upload media to this post.' },
  rest_image_not_edited: { status: 400, message: 'This attachment is not an image whose sizes can be made.' },
  rest_invalid_param: { status: 400, message: 'Invalid parameter(s).' }
})

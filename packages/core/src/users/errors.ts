/**
 * Every error of the users module, declared once. Permission errors are
 * declared with 401 and turned into 403 for signed-in callers with `denied`.
 */
// The error catalogue alone: the CLI loads these modules without the REST kernel.
import { declareErrors, kernelErrors, reworded } from '@cms/rest/errors'

export { denied } from '@cms/rest/errors'

export const authErrors = declareErrors({
  invalid_username: { status: 401, message: '<strong>Error:</strong> Unknown username. Check again or try your email address.' },
  invalid_email: { status: 401, message: '<strong>Error:</strong> Unknown email address. Check again or try your username.' },
  incorrect_password: { status: 401, message: 'The provided password is an invalid application password.' },
  rest_invalid_authorization_header: { status: 401, message: 'The Authorization header is malformed: expected "Basic" followed by base64 of "login:application password".' },
  rest_unsupported_authorization_scheme: { status: 401, message: 'Only HTTP Basic authentication with an application password is supported.' }
})

export const userErrors = {
  // Declared once in the kernel's catalogue, with the users' messages.
  rest_forbidden_context: reworded(kernelErrors.rest_forbidden_context, 'Sorry, you are not allowed to list users.'),
  rest_cannot_edit: reworded(kernelErrors.rest_cannot_edit, 'Sorry, you are not allowed to edit this user.'),
  rest_trash_not_supported: reworded(kernelErrors.rest_trash_not_supported, 'Users do not support trashing. Set \'force=true\' to delete.'),
  ...declareErrors({
    rest_user_invalid_id: { status: 404, message: 'Invalid user ID.' },
    rest_not_logged_in: { status: 401, message: 'You are not currently logged in.' },
    rest_user_cannot_view: { status: 401, message: 'Sorry, you are not allowed to list users.' },
    rest_forbidden_orderby: { status: 401, message: 'Sorry, you are not allowed to order users by this parameter.' },
    rest_forbidden_who: { status: 401, message: 'Sorry, you are not allowed to query users by this parameter.' },
    rest_cannot_create_user: { status: 401, message: 'Sorry, you are not allowed to create new users.' },
    rest_cannot_edit_roles: { status: 401, message: 'Sorry, you are not allowed to edit roles of this user.' },
    rest_user_cannot_delete: { status: 401, message: 'Sorry, you are not allowed to delete this user.' },
    rest_user_exists: { status: 400, message: 'Cannot create existing user.' },
    rest_user_invalid_role: { status: 400, message: 'The role does not exist.' },
    rest_user_invalid_email: { status: 400, message: 'Invalid email address.' },
    rest_user_invalid_argument: { status: 400, message: 'Username isn\'t editable.' },
    rest_user_invalid_slug: { status: 400, message: 'Invalid slug.' },
    rest_user_invalid_username: { status: 400, message: 'This username is invalid because it uses illegal characters. Please enter a valid username.' },
    rest_user_invalid_password: { status: 400, message: 'Passwords cannot be empty.' },
    rest_user_invalid_reassign: { status: 400, message: 'Invalid user ID for reassignment.' },
    empty_user_login: { status: 400, message: 'Cannot create a user with an empty login name.' },
    user_login_too_long: { status: 400, message: 'Username may not be longer than 60 characters.' },
    user_url_too_long: { status: 400, message: 'User URL may not be longer than 100 characters.' },
    existing_user_login: { status: 400, message: 'Sorry, that username already exists!' },
    existing_user_email: { status: 400, message: 'Sorry, that email address is already used!' }
  })
}

export const appPasswordErrors = declareErrors({
  rest_application_password_not_found: { status: 404, message: 'Application password not found.' },
  rest_no_authenticated_app_password: { status: 404, message: 'Cannot introspect application password.' },
  rest_cannot_introspect_app_password_for_non_authenticated_user: { status: 401, message: 'The authenticated application password can only be introspected for the current user.' },
  rest_cannot_list_application_passwords: { status: 401, message: 'Sorry, you are not allowed to list application passwords for this user.' },
  rest_cannot_create_application_passwords: { status: 401, message: 'Sorry, you are not allowed to create application passwords for this user.' },
  rest_cannot_read_application_password: { status: 401, message: 'Sorry, you are not allowed to read this application password.' },
  rest_cannot_edit_application_password: { status: 401, message: 'Sorry, you are not allowed to edit this application password.' },
  rest_cannot_delete_application_passwords: { status: 401, message: 'Sorry, you are not allowed to delete application passwords for this user.' },
  rest_cannot_delete_application_password: { status: 401, message: 'Sorry, you are not allowed to delete this application password.' },
  application_password_empty_name: { status: 400, message: 'An application name is required to create an application password.' },
  rest_invalid_app_id: { status: 400, message: 'The application ID must be a UUID.' }
})

/**
 * Errors of assistant/v1, declared once (seo-rollback-assistant-addons.md
 * §3). Where the real product answers a 500 or a 200 with `success: false`
 * for a client's mistake, these are the 4xx the evident intent calls for
 * (CONVENTIONS.md §3).
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const assistantErrors = {
  ...declareErrors({
    // Snippets and artifacts (§3.2, §3.3)
    missing_title: { status: 400, message: 'A snippet needs a title.' },
    invalid_type: { status: 400, message: 'Invalid snippet type.' },
    invalid_artifact_id: { status: 400, message: 'An artifact id is lowercase hexadecimal digits and hyphens.' },
    artifact_snippet_exists: { status: 409, message: 'A snippet already exists for this artifact.' },
    snippet_already_linked: { status: 409, message: 'The snippet is already linked to another artifact.' },
    snippet_not_found: { status: 404, message: 'Snippet not found.' },
    snippet_not_owned: { status: 403, message: 'You can only change snippets you created.' },
    file_not_found: { status: 404, message: 'File not found.' },
    no_files: { status: 400, message: 'The snippet has no files to publish.' },
    invalid_files: { status: 400, message: 'Files must be a non-empty array of at most 100 items.' },
    invalid_file_format: { status: 400, message: 'Each file needs a name and a content.' },
    invalid_filename: { status: 400, message: 'Invalid file name.' },
    invalid_file_type: { status: 400, message: 'Only php, css and js files are allowed.' },
    file_too_large: { status: 400, message: 'The file is too large.' },
    forbidden_function: { status: 400, message: 'Forbidden function detected.' },
    duplicate_filename: { status: 400, message: 'Duplicate file name.' },
    main_php_required: { status: 400, message: 'A snippet needs a main.php file.' },
    validation_failed: { status: 400, message: 'Snippet validation failed.' },
    assistant_busy: { status: 503, message: 'The assistant is busy with other work; try again shortly.' },
    // Dev mode (§3.4)
    session_creation_failed: { status: 403, message: 'Test mode could not be enabled for this session.' },
    // Super-admin (§3.5)
    super_admin_explicitly_disabled: { status: 403, message: 'Super Admin mode was disabled by an administrator.' },
    missing_exec_token: { status: 403, message: 'The X-Assistant-Exec-Token header is required.' },
    invalid_exec_token: { status: 403, message: 'The execution token is invalid or expired.' },
    execution_not_supported: { status: 501, message: 'Executing code is not enabled on this site (CMS_ASSISTANT_EXECUTE=1 enables it).' },
    empty_code: { status: 400, message: 'No code to execute.' },
    invalid_path: { status: 400, message: 'Invalid path.' },
    not_a_directory: { status: 404, message: 'The path is not a directory.' },
    not_a_file: { status: 404, message: 'The path is not a file.' },
    // Settings and site (§3.6)
    missing_value: { status: 400, message: 'A value is required.' },
    invalid_json: { status: 400, message: 'The value is not valid JSON.' },
    setting_too_large: { status: 400, message: 'The setting is too large.' },
    invalid_options: { status: 400, message: 'Options must be a non-empty object of option names and values.' },
    invalid_return_to: { status: 400, message: 'return_to must be a URL of this site.' },
    invalid_post_type: { status: 400, message: 'The post is not a builder library template.' },
    builder_not_active: { status: 404, message: 'The page builder is not active.' },
    rest_post_invalid_id: { status: 404, message: 'Invalid post ID.' },
    no_token: { status: 401, message: 'The assistant service gave no access token.' }
  }),
  // Declared once in the kernel's catalogue.
  rest_forbidden: kernelErrors.rest_forbidden,
  rest_invalid_param: kernelErrors.rest_invalid_param,
  rest_upstream_error: kernelErrors.rest_upstream_error
}

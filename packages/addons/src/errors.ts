/**
 * Errors of the add-on namespaces, declared once. Where the real product
 * answers 200 `null`, a PHP fatal or `{"success": false}` with a 200, these
 * are the proper 4xx (CONVENTIONS.md §3); the messages are the product's.
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const addonsErrors = {
  ...declareErrors({
    invalid_action: { status: 404, message: 'No such lookup.' },
    invalid_query_slug: { status: 400, message: 'query_slug does not name a type this lookup knows.' },
    invalid_item_id: { status: 400, message: 'item_id must be the id of a menu item.' },
    menu_item_not_found: { status: 404, message: 'Menu item not found.' },
    mega_menu_not_found: { status: 404, message: 'This menu item has no mega menu.' },
    invalid_data: { status: 400, message: 'Invalid data.' },
    widget_not_found: { status: 404, message: 'Widget not found.' },
    widget_version_not_found: { status: 404, message: 'No such version of this widget.' },
    widget_code_not_allowed: { status: 403, message: 'Sorry, you are not allowed to store CSS or JavaScript in a widget.' }
  }),
  rest_forbidden: kernelErrors.rest_forbidden
}

/**
 * The element and widget types the builder knows, with the controls each
 * has (a declared list standing in for the real product's registry of
 * widgets): `kit-elements-defaults` keeps only real controls of a known
 * type, `favorites` only known widget names.
 */

const SPACING = ['margin', 'padding', '_margin', '_padding', '_element_id', '_css_classes', '_z_index']
const BACKGROUND = ['background_background', 'background_color', 'background_image', 'background_position', 'background_repeat', 'background_size']
const BORDER = ['border_border', 'border_width', 'border_color', 'border_radius', 'box_shadow_box_shadow_type', 'box_shadow_box_shadow']
const TYPOGRAPHY = ['typography_typography', 'typography_font_family', 'typography_font_size', 'typography_font_weight', 'typography_line_height', 'typography_letter_spacing', 'typography_text_transform']

/** Structural elements: they hold other elements. */
export const ELEMENT_TYPES: Readonly<Record<string, readonly string[]>> = {
  section: ['layout', 'content_width', 'gap', 'height', 'column_position', 'html_tag', ...BACKGROUND, ...BORDER, ...SPACING],
  column: ['_inline_size', 'content_position', 'space_between_widgets', 'html_tag', ...BACKGROUND, ...BORDER, ...SPACING],
  container: ['content_width', 'width', 'min_height', 'flex_direction', 'flex_justify_content', 'flex_align_items', 'flex_gap', 'flex_wrap', 'html_tag', ...BACKGROUND, ...BORDER, ...SPACING]
}

/** Widgets: the leaves of the element tree (and what may be a favorite). */
export const WIDGET_TYPES: Readonly<Record<string, readonly string[]>> = {
  heading: ['title', 'link', 'size', 'header_size', 'align', 'title_color', ...TYPOGRAPHY, ...SPACING],
  'text-editor': ['editor', 'drop_cap', 'align', 'text_color', ...TYPOGRAPHY, ...SPACING],
  button: ['text', 'link', 'align', 'size', 'selected_icon', 'icon_align', 'button_text_color', 'background_color', 'border_radius', 'text_padding', ...TYPOGRAPHY, ...BORDER, ...SPACING],
  image: ['image', 'image_size', 'align', 'caption_source', 'link_to', 'link', 'width', 'opacity', ...BORDER, ...SPACING],
  video: ['video_type', 'youtube_url', 'vimeo_url', 'autoplay', 'mute', 'loop', 'controls', 'aspect_ratio', ...SPACING],
  icon: ['selected_icon', 'view', 'shape', 'link', 'align', 'primary_color', 'size', ...SPACING],
  spacer: ['space', ...SPACING],
  divider: ['style', 'weight', 'color', 'width', 'align', 'gap', ...SPACING],
  html: ['html', ...SPACING],
  'image-box': ['image', 'title_text', 'description_text', 'link', 'position', 'title_size', ...TYPOGRAPHY, ...SPACING],
  'icon-list': ['icon_list', 'view', 'space_between', 'icon_color', 'text_color', ...TYPOGRAPHY, ...SPACING]
}

/** The controls of an element or widget type, or undefined for a type the builder does not know. */
export function controlsOf (type: string): readonly string[] | undefined {
  return Object.hasOwn(ELEMENT_TYPES, type) ? ELEMENT_TYPES[type] : Object.hasOwn(WIDGET_TYPES, type) ? WIDGET_TYPES[type] : undefined
}

export function isWidget (name: string): boolean {
  return Object.hasOwn(WIDGET_TYPES, name)
}

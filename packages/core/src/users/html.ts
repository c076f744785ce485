/**
 * Server-rendered markup of the admin pages: one layout, plain forms with
 * labels, and every echoed value escaped.
 */

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml (value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

/** Marks markup built here as safe to insert as is. */
export class Html {
  constructor (readonly value: string) {}
  toString (): string { return this.value }
}

/** A template tag: interpolated values are escaped unless they are `Html` (or lists of it). */
export function html (strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!
  })
  return new Html(out)
}

function render (value: unknown): string {
  if (value instanceof Html) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === undefined || value === null || value === false) return ''
  return escapeHtml(value)
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#1f2937;margin:0;line-height:1.5}
main{max-width:32rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.5rem;margin-top:0}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #6b7280;border-radius:4px}
button{font-size:1rem;padding:.5rem 1rem;margin:1rem .5rem 0 0;border-radius:4px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1d4ed8}
button:focus,input:focus{outline:3px solid #f59e0b;outline-offset:1px}
.notice{padding:.75rem 1rem;border-left:4px solid #b91c1c;background:#fef2f2;margin:1rem 0}
.success{border-left-color:#15803d;background:#f0fdf4}
kbd{display:inline-block;font-size:1.25rem;padding:.5rem;background:#f9fafb;border:1px solid #d1d5db;border-radius:4px;user-select:all}
.meta{color:#4b5563;font-size:.9rem}`

export function page (title: string, body: Html): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.value
}

export function notice (message: string | undefined, kind: 'error' | 'success' = 'error'): Html {
  if (message === undefined || message === '') return html``
  return kind === 'error'
    ? html`<div class="notice" role="alert">${message}</div>`
    : html`<div class="notice success" role="status">${message}</div>`
}

export function hidden (name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}">`
}

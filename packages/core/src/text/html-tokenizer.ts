/**
 * htmlparser2's tokenizer with every callback a reader does not name left
 * as a no-op: the one-pass reading the linear HTML code builds on.
 */
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2'

const ignore = (): void => {}

const SILENT: TokenizerCallbacks = {
  onattribdata: ignore,
  onattribentity: ignore,
  onattribend: ignore,
  onattribname: ignore,
  oncdata: ignore,
  onclosetag: ignore,
  oncomment: ignore,
  ondeclaration: ignore,
  onend: ignore,
  onopentagend: ignore,
  onopentagname: ignore,
  onprocessinginstruction: ignore,
  onselfclosingtag: ignore,
  ontext: ignore,
  ontextentity: ignore
}

/** A tokenizer decoding entities that calls only the given callbacks; the caller writes and ends it. */
export function htmlTokenizer (callbacks: Partial<TokenizerCallbacks>): Tokenizer {
  return new Tokenizer({ decodeEntities: true }, { ...SILENT, ...callbacks })
}

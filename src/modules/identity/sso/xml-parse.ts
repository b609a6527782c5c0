import { DOMParser } from '@xmldom/xmldom';

/**
 * The document `xml` parses to, or why it is not XML (the parser's first complaint, or no root
 * element). xmldom expands no external entity and fetches nothing: SAML metadata and Responses are
 * read with it (saml-metadata-rules.ts, saml-response-rules.ts).
 */
export function parseXml(xml: string): { document: Document; root: Element } | { problem: string } {
  let failure: string | undefined;
  const fail = (message: string) => {
    failure ??= message;
  };
  const document = new DOMParser({ errorHandler: { warning: () => undefined, error: fail, fatalError: fail } }).parseFromString(
    xml,
    'text/xml',
  ) as unknown as Document | undefined;
  const root = document?.documentElement;
  if (failure !== undefined || !document || !root) return { problem: failure ?? 'no root element' };
  return { document, root };
}

/** A property name or index as one segment of a JSON pointer (RFC 6901 §3): `~` written `~0`, `/` written `~1`. */
export const pointerToken = (key: string | number): string => String(key).replaceAll('~', '~0').replaceAll('/', '~1');

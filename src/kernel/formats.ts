/**
 * The formats of xAPI values every module meets (xAPI 2.0 Part 2 §2.2, §2.4; 1.0.3 §2.2, §2.4):
 * the versions spoken, JSON values, UUIDs, IRIs, ISO 8601 durations and RFC 5646 language tags.
 */

export type XapiVersion = '1.0.3' | '2.0.0';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Best effort (2.0 Part 2 §2.2.s4.b6): a scheme, then something without white space.
const IRI = /^[a-z][a-z0-9+.-]*:[^\s]+$/i;
// ISO 8601:2004 §4.4.3.2 durations: PnYnMnDTnHnMnS (a fraction on any part) or PnW alone.
const DURATION =
  /^P(?!$)(?:\d+(?:[.,]\d+)?Y)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?D)?(?:T(?=\d)(?:\d+(?:[.,]\d+)?H)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?S)?)?$|^P\d+(?:[.,]\d+)?W$/;
// RFC 5646 language tag, checked by the sequence of subtag lengths (2.0 Part 2 §2.2.s4.b2).
const LANGUAGE_TAG =
  /^(?:(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4}|[a-z]{5,8})(?:-[a-z]{4})?(?:-(?:[a-z]{2}|\d{3}))?(?:-(?:[a-z\d]{5,8}|\d[a-z\d]{3}))*(?:-[\da-wy-z](?:-[a-z\d]{2,8})+)*(?:-x(?:-[a-z\d]{1,8})+)?|x(?:-[a-z\d]{1,8})+|i-[a-z]{2,8})$/i;

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
export const isIri = (value: unknown): value is string => typeof value === 'string' && IRI.test(value);
export const isLanguageTag = (value: unknown): value is string => typeof value === 'string' && LANGUAGE_TAG.test(value);
export const isDuration = (value: unknown): value is string => typeof value === 'string' && DURATION.test(value);

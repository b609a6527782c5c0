import type { AppError } from '../../../platform/http/app-error.js';
import { errorPage, PAGE_HEADERS } from '../oauth/sign-in.page.js';

/** The launch page's headers: never cached, never framed, no referrer (the launch link carries a credential). */
export const LAUNCH_PAGE_HEADERS = PAGE_HEADERS;

const TITLES: Record<number, string> = {
  400: 'This launch link is incomplete',
  401: 'This launch link cannot sign you in',
  404: 'There is nothing to launch here',
  429: 'Too many failed sign-ins',
};

/**
 * What a person sees when a launch fails: a page naming the problem (the error's message, escaped
 * by errorPage), never a redirect to the content.
 */
export function launchErrorPage(error: AppError): string {
  return errorPage(TITLES[error.status] ?? 'The content could not be launched', error.message);
}

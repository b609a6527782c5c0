import { api, type Query } from './api';

export interface Figures {
  people: number;
  completed: number;
  rate: number | null;
}

export interface UnitFigures {
  id: string;
  parentId: string | null;
  direct: Figures;
  subtree: Figures;
  attributes?: Record<string, unknown>;
}

export interface ComplianceFigures {
  onTime: number;
  late: number;
  overdue: number;
  inProgress: number;
  notStarted: number;
  total: number;
  complianceRate: number | null;
}

export interface ActivityOverTime {
  from: string;
  to: string;
  interval: 'day' | 'week';
  verbs: string[];
  intervals: { start: string; end: string; statements: number; activeLearners: number; verbs: Record<string, number> }[];
}

export const completionByUnit = (query: Query, signal?: AbortSignal) =>
  api<{ activities: number; units: UnitFigures[] }>('GET', '/api/reports/completion-by-unit', { query, signal });

export const activityOverTime = (query: Query, signal?: AbortSignal) =>
  api<ActivityOverTime>('GET', '/api/reports/activity-over-time', { query, signal });

export const assignmentCompliance = (query: Query, signal?: AbortSignal) =>
  api<{ units: (Omit<UnitFigures, 'direct' | 'subtree'> & { direct: ComplianceFigures; subtree: ComplianceFigures })[] }>(
    'GET',
    '/api/reports/assignment-compliance',
    { query, signal },
  );

/** `YYYY-MM-DD` of the UTC day `days` before today. */
export function utcDay(daysAgo = 0): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

/** The last part of a verb's IRI (`…/verbs/completed`: completed), for a legend. */
export const verbName = (iri: string): string => iri.replace(/\/$/, '').split(/[/#]/).pop() ?? iri;

/** The entries to chart people by: the roots, or the children of a single root. */
export function topUnits<T extends { id: string; parentId: string | null }>(units: T[]): T[] {
  const roots = units.filter((unit) => unit.parentId === null || !units.some((other) => other.id === unit.parentId));
  if (roots.length !== 1) return roots;
  const children = units.filter((unit) => unit.parentId === roots[0]!.id);
  return children.length > 0 ? children : roots;
}

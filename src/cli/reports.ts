import type { LearningServices } from '../modules/learning/index.js';
import { listTenants } from '../modules/tenancy/index.js';
import { type CommandContext, none, say, tenantNamed, unknownVerb, withModules } from './command.js';

const VERBS = ['verify', 'rebuild'] as const;

/**
 * `learnbase reports verify [--tenant NAME]`: the counts the reports keep compared with a recount
 * from the records, exit 0 when they are equal and 1 when not (the differences listed);
 * `reports rebuild [--tenant NAME]`: the counts made again from the records. Without --tenant,
 * every tenant (docs/learning.md, "Counts kept as the writes happen").
 */
export async function reportsCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  if (verb !== 'verify' && verb !== 'rebuild') throw unknownVerb('reports', verb, VERBS, 'reports verify --tenant NAME');
  none(operands, `reports ${verb} [--tenant NAME]`);
  const tenants = context.values.tenant === undefined ? await listTenants(context.db) : [await tenantNamed(context, `reports ${verb}`)];
  return withModules(context, async (modules) => {
    const { counts } = modules.services<LearningServices>('learning');
    if (verb === 'rebuild') {
      const rebuilt: Array<{ tenant: string; ms: number }> = [];
      for (const tenant of tenants) {
        const started = Date.now();
        await counts.rebuild(tenant);
        rebuilt.push({ tenant: tenant.name, ms: Date.now() - started });
      }
      say(
        context,
        { rebuilt },
        rebuilt.map((row) => `Rebuilt the kept report counts of tenant "${row.tenant}" (${row.ms} ms).`).join('\n') || 'No tenants.',
      );
      return 0;
    }
    const verified = [];
    for (const tenant of tenants) verified.push({ tenant: tenant.name, ...(await counts.verify(tenant)) });
    const differences = (row: { people: unknown[]; units: unknown[]; members: unknown[]; classes: unknown[]; compliance: unknown[] }) =>
      row.people.length + row.units.length + row.members.length + row.classes.length + row.compliance.length;
    const lines = verified.map(({ tenant, rebuilding, people, units, members, classes, compliance }) => {
      const equal = differences({ people, units, members, classes, compliance }) === 0;
      if (equal)
        return `Tenant "${tenant}": ${rebuilding ? 'being rebuilt (its reports recount meanwhile); ' : ''}the kept counts equal a recount.`;
      return [
        `Tenant "${tenant}": the kept counts differ from a recount (learnbase reports rebuild --tenant ${JSON.stringify(tenant)} makes them again):`,
        ...people.map((row) => `  person ${row.agentKey}: kept ${row.kept ?? 'none'}, recounted ${row.recounted ?? 'none'}`),
        ...units.map(
          (row) => `  entry "${row.positionId}" job "${row.jobId}": kept ${row.kept ?? 'none'}, recounted ${row.recounted ?? 'none'}`,
        ),
        ...members.map((row) => `  assignment ${row.assignmentId} member ${row.agentKey}: kept ${row.kept}, recounted ${row.recounted}`),
        ...classes.map((row) => `  assignment ${row.assignmentId} by class: kept ${row.kept}, recounted ${row.recounted}`),
        ...compliance.map(
          (row) =>
            `  assignment ${row.assignmentId} entry "${row.positionId}" job "${row.jobId}": kept ${row.kept}, recounted ${row.recounted}`,
        ),
      ].join('\n');
    });
    say(context, { verified }, lines.join('\n') || 'No tenants.');
    return verified.every((row) => differences(row) === 0) ? 0 : 1;
  });
}

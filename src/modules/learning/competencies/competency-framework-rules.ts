/**
 * A competency framework in 1EdTech CASE JSON (a CFPackage: its CFDocument and CFItems) read as
 * entries of the competency catalogue (docs/learning.md, "`PUT /api/competencies/case`"). Pure:
 * the route's schema has checked the types, the catalogue checks the names it makes.
 */

/** The fields of a CFItem this import reads; the others (CFAssociations, educationLevel, …) are left. */
export interface CaseItem {
  identifier?: string | null;
  fullStatement: string;
  abbreviatedStatement?: string | null;
  humanCodingScheme?: string | null;
  CFItemType?: string | null;
}

/** A catalogue entry made of one CFItem: its place among CFItems, and the fields its name came from. */
export interface FrameworkEntry {
  index: number;
  name: string;
  description: string;
  identifier?: string;
  /** The CFItem fields the name is made of, as problems with it name them: `humanCodingScheme+abbreviatedStatement`. */
  nameFrom: string;
}

const present = (value: string | null | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
};

/**
 * The catalogue entry of one CFItem. Its name is the short statement (`abbreviatedStatement`,
 * else `fullStatement`), after the `humanCodingScheme` when it has one (`MATH.1.2 Adds fractions`:
 * the code keeps items of the same wording in different branches apart); its description the
 * `fullStatement`.
 */
export function frameworkEntry(item: CaseItem, index: number): FrameworkEntry {
  const code = present(item.humanCodingScheme);
  const abbreviated = present(item.abbreviatedStatement);
  const short = abbreviated ?? item.fullStatement.trim();
  const from = abbreviated === undefined ? 'fullStatement' : 'abbreviatedStatement';
  const identifier = present(item.identifier);
  return {
    index,
    name: code === undefined ? short : `${code} ${short}`,
    description: item.fullStatement,
    ...(identifier === undefined ? {} : { identifier }),
    nameFrom: code === undefined ? from : `humanCodingScheme+${from}`,
  };
}

/**
 * The entries of the CFItems to import: all of them, or with `itemTypes` only those whose
 * `CFItemType` is one of them (case-insensitively; an item without one is left out), and how many
 * were left out.
 */
export function frameworkEntries(
  items: readonly CaseItem[],
  itemTypes?: readonly string[],
): { entries: FrameworkEntry[]; skipped: number } {
  const wanted = itemTypes === undefined ? undefined : new Set(itemTypes.map((type) => type.trim().toLowerCase()));
  const entries: FrameworkEntry[] = [];
  items.forEach((item, index) => {
    const type = present(item.CFItemType)?.toLowerCase();
    if (wanted === undefined || (type !== undefined && wanted.has(type))) entries.push(frameworkEntry(item, index));
  });
  return { entries, skipped: items.length - entries.length };
}

/** `itemTypes=Competency,Skill` as a list: its names trimmed, empty ones dropped; undefined when none is left. */
export function itemTypesOf(parameter: string | undefined): string[] | undefined {
  if (parameter === undefined) return undefined;
  const types = parameter
    .split(',')
    .map((type) => type.trim())
    .filter((type) => type !== '');
  return types.length === 0 ? undefined : types;
}

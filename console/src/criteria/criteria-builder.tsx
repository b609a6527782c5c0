import { createContext, type KeyboardEvent, useContext, useEffect, useId, useMemo, useState } from 'react';
import {
  Button,
  Checkbox,
  ComboBox,
  FieldError,
  Group,
  Header,
  Input,
  type Key,
  Label,
  ListBox,
  ListBoxItem,
  ListBoxSection,
  Popover,
  Radio,
  RadioGroup,
  Select,
  SelectValue,
  Tag,
  TagGroup,
  TagList,
  Text,
  TextField,
} from 'react-aria-components';
import {
  type ConditionNode,
  type CriteriaModel,
  checkModel,
  FIELD_CHOICES,
  FIELD_KINDS,
  type FieldKind,
  fieldChoice,
  type GroupNode,
  type ModelNode,
  newCondition,
  newGroup,
  OPERATOR_LABELS,
  OPERATORS,
  type Operator,
  type Problem,
  replaceNode,
  withOperator,
} from './criteria-model';
import './criteria-builder.css';

/**
 * The visual builder of actor search criteria (docs/actors.md, "Searching actors"): groups of
 * conditions, each group matching all or any of them, any group or condition negated. It edits a
 * CriteriaModel (criteria-model.ts: fromCriteria reads criteria into one, toCriteria writes it) and
 * says each problem checkModel finds beside the control it is about. Every control is a React Aria
 * component with a visible label, so it is used by keyboard and named to screen readers alike.
 */
export interface CriteriaBuilderProps {
  value: CriteriaModel;
  onChange: (next: CriteriaModel) => void;
  /** The tenant's actor attribute names (GET /api/actors/attributes), offered for `attributes.<name>`. */
  attributeNames?: readonly string[];
}

/** What every part of the builder needs: the problems, the edits, and where focus goes after one. */
interface Builder {
  attributeNames: readonly string[];
  problems: ReadonlyMap<string, readonly Problem[]>;
  domId: (nodeId: string, part: string) => string;
  change: (node: ModelNode) => void;
  add: (group: GroupNode, child: ModelNode) => void;
  remove: (group: GroupNode, node: ModelNode) => void;
}

const BuilderContext = createContext<Builder | null>(null);
const useBuilder = () => useContext(BuilderContext)!;

export function CriteriaBuilder({ value, onChange, attributeNames = [] }: CriteriaBuilderProps) {
  const prefix = useId();
  // After adding or removing, focus moves to the new condition or to its group's "Add condition":
  // otherwise it would fall back to the page's start when the focused control is gone.
  const [focusTarget, setFocusTarget] = useState<string | null>(null);
  useEffect(() => {
    if (focusTarget === null) return;
    const target = document.getElementById(focusTarget);
    (target?.matches('button, input') ? target : target?.querySelector<HTMLElement>('button, input'))?.focus();
    setFocusTarget(null);
  }, [focusTarget]);

  const problems = useMemo(() => problemsByNode(checkModel(value)), [value]);
  const builder: Builder = {
    attributeNames,
    problems,
    domId: (nodeId, part) => `${prefix}-${nodeId}-${part}`,
    change: (node) => onChange(replaceNode(value, node.id, node)),
    add: (group, child) => {
      onChange(replaceNode(value, group.id, { ...group, children: [...group.children, child] }));
      const first = child.type === 'group' ? child.children[0] : child;
      setFocusTarget(`${prefix}-${first.id}-row`);
    },
    remove: (group, node) => {
      onChange(replaceNode(value, node.id, null));
      setFocusTarget(`${prefix}-${group.id}-add`);
    },
  };

  return (
    <BuilderContext.Provider value={builder}>
      <div className="criteria-builder">
        <GroupEditor group={value} where="" />
      </div>
    </BuilderContext.Provider>
  );
}

function problemsByNode(problems: readonly Problem[]): Map<string, Problem[]> {
  const byNode = new Map<string, Problem[]>();
  for (const problem of problems) byNode.set(problem.id, [...(byNode.get(problem.id) ?? []), problem]);
  return byNode;
}

/** The problems of one part of a node, errors first. */
function useProblems(nodeId: string, part: Problem['part']): Problem[] {
  const found = useBuilder().problems.get(nodeId) ?? [];
  return found.filter((problem) => problem.part === part).sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

const childWhere = (where: string, index: number) => (where === '' ? `${index + 1}` : `${where}.${index + 1}`);

// ---------------------------------------------------------------------------------------------
// Groups

function GroupEditor({ group, parent, where }: { group: GroupNode; parent?: GroupNode; where: string }) {
  const builder = useBuilder();
  const titleId = builder.domId(group.id, 'title');
  const problemsId = builder.domId(group.id, 'problems');
  const problems = useProblems(group.id, 'node');
  const title = parent ? `Group ${where}` : 'Criteria';
  const addSuffix = parent ? ` to group ${where}` : '';
  return (
    <fieldset
      className="criteria-group"
      aria-labelledby={titleId}
      aria-describedby={problems.length > 0 ? problemsId : undefined}
      id={builder.domId(group.id, 'row')}
    >
      <div className="criteria-head">
        <span className="criteria-title" id={titleId}>
          {title}
        </span>
        <Negation node={group} />
        <RadioGroup
          className="criteria-combinator"
          orientation="horizontal"
          value={group.combinator}
          onChange={(combinator) => builder.change({ ...group, combinator: combinator === 'or' ? 'or' : 'and' })}
        >
          <Label className="criteria-label">Match</Label>
          <div className="criteria-choices">
            <Radio className="radio criteria-radio" value="and">
              all of these
            </Radio>
            <Radio className="radio criteria-radio" value="or">
              any of these
            </Radio>
          </div>
        </RadioGroup>
        {parent && (
          <Button className="criteria-remove" aria-label={`Remove group ${where}`} onPress={() => builder.remove(parent, group)}>
            Remove
          </Button>
        )}
      </div>
      <NodeProblems id={problemsId} problems={problems} />
      {group.children.length === 0 && !parent && !group.negated && <p className="criteria-hint">No conditions yet: every actor matches.</p>}
      {group.children.length > 0 && (
        <ul className="criteria-children">
          {group.children.map((child, index) => (
            <li key={child.id}>
              {child.type === 'group' ? (
                <GroupEditor group={child} parent={group} where={childWhere(where, index)} />
              ) : (
                <ConditionEditor condition={child} parent={group} where={childWhere(where, index)} />
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="criteria-actions">
        <Button
          id={builder.domId(group.id, 'add')}
          className="criteria-add"
          aria-label={`Add condition${addSuffix}`}
          onPress={() => builder.add(group, newCondition())}
        >
          Add condition
        </Button>
        <Button
          className="criteria-add"
          aria-label={`Add group${addSuffix}`}
          // A group inside an "all of" is most often an "any of", and the other way round.
          onPress={() => builder.add(group, newGroup(group.combinator === 'and' ? 'or' : 'and', [newCondition()]))}
        >
          Add group
        </Button>
      </div>
    </fieldset>
  );
}

function Negation({ node }: { node: ModelNode }) {
  const builder = useBuilder();
  return (
    <Checkbox className="check criteria-check" isSelected={node.negated} onChange={(negated) => builder.change({ ...node, negated })}>
      Not
    </Checkbox>
  );
}

function NodeProblems({ id, problems }: { id: string; problems: readonly Problem[] }) {
  if (problems.length === 0) return null;
  return (
    <div id={id} className="criteria-node-problems">
      {problems.map((problem) => (
        <p key={problem.message} className={problem.severity === 'error' ? 'criteria-error' : 'criteria-warning'}>
          {problem.message}
        </p>
      ))}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Conditions

function ConditionEditor({ condition, parent, where }: { condition: ConditionNode; parent: GroupNode; where: string }) {
  const builder = useBuilder();
  const titleId = builder.domId(condition.id, 'title');
  const problemsId = builder.domId(condition.id, 'problems');
  const problems = useProblems(condition.id, 'node');
  const choice = fieldChoice(condition.field);
  return (
    <fieldset
      className="criteria-condition"
      aria-labelledby={titleId}
      aria-describedby={problems.length > 0 ? problemsId : undefined}
      id={builder.domId(condition.id, 'row')}
    >
      <span className="criteria-title" id={titleId}>
        Condition {where}
      </span>
      <Negation node={condition} />
      <FieldPicker condition={condition} />
      {choice.needsName && <AttributeName condition={condition} />}
      <OperatorPicker condition={condition} />
      <ValueEditor condition={condition} />
      <Button className="criteria-remove" aria-label={`Remove condition ${where}`} onPress={() => builder.remove(parent, condition)}>
        Remove
      </Button>
      <NodeProblems id={problemsId} problems={problems} />
    </fieldset>
  );
}

const SECTIONS = [...new Set(FIELD_CHOICES.map((choice) => choice.section))];

function FieldPicker({ condition }: { condition: ConditionNode }) {
  const builder = useBuilder();
  const pick = (key: Key | null) => {
    if ((FIELD_KINDS as readonly Key[]).includes(key ?? '')) builder.change({ ...condition, field: key as FieldKind });
  };
  return (
    <Select className="criteria-control criteria-field" value={condition.field} onChange={pick}>
      <Label className="criteria-label">Field</Label>
      <PickerButton />
      <Popover className="criteria-popover">
        <ListBox className="criteria-listbox">
          {SECTIONS.map((section) => (
            <ListBoxSection key={section} id={section}>
              <Header>{section}</Header>
              {FIELD_CHOICES.filter((choice) => choice.section === section).map((choice) => (
                <ListBoxItem key={choice.kind} id={choice.kind} className="criteria-option">
                  {choice.label}
                </ListBoxItem>
              ))}
            </ListBoxSection>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}

function OperatorPicker({ condition }: { condition: ConditionNode }) {
  const builder = useBuilder();
  const ops = fieldChoice(condition.field).ops;
  const pick = (key: Key | null) => {
    if ((OPERATORS as readonly Key[]).includes(key ?? '')) builder.change(withOperator(condition, key as Operator));
  };
  return (
    <Select className="criteria-control criteria-operator" value={condition.op} onChange={pick}>
      <Label className="criteria-label">Operator</Label>
      <PickerButton />
      <Popover className="criteria-popover">
        <ListBox className="criteria-listbox">
          {ops.map((op) => (
            <ListBoxItem key={op} id={op} className="criteria-option">
              {OPERATOR_LABELS[op]}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}

function PickerButton() {
  return (
    <Button className="criteria-picker">
      <SelectValue />
      <span aria-hidden="true" className="criteria-chevron">
        ▾
      </span>
    </Button>
  );
}

function AttributeName({ condition }: { condition: ConditionNode }) {
  const builder = useBuilder();
  const suggestions = condition.field === 'attributes' ? builder.attributeNames : [];
  return (
    <TextInput
      label="Attribute name"
      value={condition.name}
      onChange={(name) => builder.change({ ...condition, name })}
      suggestions={suggestions}
      problems={useProblems(condition.id, 'name')}
    />
  );
}

function ValueEditor({ condition }: { condition: ConditionNode }) {
  const builder = useBuilder();
  const problems = useProblems(condition.id, 'value');
  const suggestions = fieldChoice(condition.field).suggestedValues ?? [];
  switch (condition.op) {
    case 'exists':
      return (
        <RadioGroup
          className="criteria-control criteria-exists"
          orientation="horizontal"
          value={condition.value ? 'present' : 'absent'}
          onChange={(presence) => builder.change({ ...condition, value: presence === 'present' })}
        >
          <Label className="criteria-label">Value</Label>
          <div className="criteria-choices">
            <Radio className="radio criteria-radio" value="present">
              present
            </Radio>
            <Radio className="radio criteria-radio" value="absent">
              absent
            </Radio>
          </div>
        </RadioGroup>
      );
    case 'in':
      return <ValueList condition={condition} suggestions={suggestions} problems={problems} />;
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return (
        <TextInput
          label="Number or date"
          description="12, -0.5, 2026-11-23 or 2026-11-23T17:00Z"
          value={condition.value}
          onChange={(value) => builder.change({ ...condition, value })}
          problems={problems}
        />
      );
    default:
      return (
        <TextInput
          label="Value"
          value={condition.value}
          onChange={(value) => builder.change({ ...condition, value })}
          suggestions={suggestions}
          problems={problems}
        />
      );
  }
}

/** The values of an `in`: a tag per value (Delete or its × removes it), and a field to add one. */
function ValueList({
  condition,
  suggestions,
  problems,
}: {
  condition: Extract<ConditionNode, { op: 'in' }>;
  suggestions: readonly string[];
  problems: readonly Problem[];
}) {
  const builder = useBuilder();
  const [draft, setDraft] = useState('');
  const values = condition.value;
  const add = () => {
    // An empty value is valid for the API but never meant when typed; a repeated one changes nothing.
    if (draft !== '' && !values.includes(draft)) builder.change({ ...condition, value: [...values, draft] });
    setDraft('');
  };
  const remove = (keys: Set<Key>) => builder.change({ ...condition, value: values.filter((_, index) => !keys.has(String(index))) });
  return (
    <div className="criteria-control criteria-list">
      <TagGroup className="criteria-tags" onRemove={remove}>
        <Label className="criteria-label">Values</Label>
        <TagList className="criteria-taglist" renderEmptyState={() => <span className="criteria-hint">None yet</span>}>
          {values.map((value, index) => (
            // Values may repeat (the API allows it): the position tells them apart.
            // biome-ignore lint/suspicious/noArrayIndexKey: the values are the list's only content
            <Tag key={index} id={String(index)} textValue={value === '' ? '(empty)' : value} className="criteria-tag">
              {value === '' ? <em>(empty)</em> : value}
              <Button slot="remove" className="criteria-tag-remove">
                ×
              </Button>
            </Tag>
          ))}
        </TagList>
      </TagGroup>
      <div className="criteria-add-value">
        <TextInput
          label="Add a value"
          value={draft}
          onChange={setDraft}
          onEnter={add}
          suggestions={suggestions.filter((suggestion) => !values.includes(suggestion))}
          problems={problems}
        />
        <Button className="criteria-add" onPress={add}>
          Add
        </Button>
      </div>
    </div>
  );
}

interface TextInputProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problems: readonly Problem[];
  description?: string;
  /** Values to offer while typing (any other is still accepted): a combo box instead of a plain field. */
  suggestions?: readonly string[];
  /** Enter does this instead of submitting the form the builder may be in. */
  onEnter?: () => void;
}

/** A text field or, with suggestions, a combo box that takes any text; its problem said below it. */
function TextInput({ label, value, onChange, problems, description, suggestions = [], onEnter }: TextInputProps) {
  const [problem] = problems;
  const isInvalid = problem?.severity === 'error';
  const warning = problem?.severity === 'warning' ? problem.message : undefined;
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' && onEnter) {
      event.preventDefault();
      onEnter();
    }
  };
  const help = (description || warning) && (
    // One description element: React Aria links a field to a single one.
    <Text slot="description" className="criteria-hint">
      {description}
      {description && warning && ' '}
      {warning && <span className="criteria-warning">{warning}</span>}
    </Text>
  );
  if (suggestions.length === 0) {
    return (
      <TextField className="criteria-control criteria-text" value={value} onChange={onChange} isInvalid={isInvalid}>
        <Label className="criteria-label">{label}</Label>
        <Input spellCheck={false} onKeyDown={onKeyDown} />
        {help}
        <FieldError>{isInvalid && problem.message}</FieldError>
      </TextField>
    );
  }
  return (
    <ComboBox
      className="criteria-control criteria-text"
      allowsCustomValue
      inputValue={value}
      onInputChange={onChange}
      defaultItems={suggestions.map((suggestion) => ({ id: suggestion }))}
      isInvalid={isInvalid}
    >
      <Label className="criteria-label">{label}</Label>
      <Group className="criteria-combo">
        <Input spellCheck={false} onKeyDown={onKeyDown} />
        <Button className="criteria-combo-button">
          <span aria-hidden="true">▾</span>
        </Button>
      </Group>
      {help}
      <FieldError>{isInvalid && problem.message}</FieldError>
      <Popover className="criteria-popover">
        <ListBox className="criteria-listbox">
          {(item: { id: string }) => (
            <ListBoxItem id={item.id} className="criteria-option">
              {item.id}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  );
}

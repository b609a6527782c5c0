import { type ReactNode, useEffect, useState } from 'react';
import { ComboBox, Group, Input, Label, ListBox, ListBoxItem, Popover, Text } from 'react-aria-components';
import { ErrorNote } from './notes';

/**
 * A combo box that searches as one types and picks one of what it found. The text is the caller's
 * (what is found depends on it); picking an option writes its name into the box, and the choice
 * holds until the text is typed over: `onChange` hears the option then, and `undefined` once it no
 * longer holds.
 */
export function SearchPicker<T>({
  label,
  typed,
  onTypedChange,
  options,
  keyOf,
  nameOf,
  renderOption,
  onChange,
  menuTrigger,
  description,
  emptyState,
  error,
  isDisabled,
}: {
  label: string;
  typed: string;
  onTypedChange: (typed: string) => void;
  /** What was found for the text typed. */
  options: T[];
  keyOf: (option: T) => string;
  /** The text an option puts in the box when picked. */
  nameOf: (option: T) => string;
  renderOption: (option: T) => ReactNode;
  onChange: (picked: T | undefined) => void;
  /** `input` where the options come from a search as one types, `focus` where they are in hand. */
  menuTrigger: 'input' | 'focus';
  /** The help below the box (what to type, how many are shown). */
  description: ReactNode;
  /** What the open list says when it has no option. */
  emptyState: ReactNode;
  error?: unknown;
  /** An option shown but not to be picked (an activity without a launch URL); its rendering says why. */
  isDisabled?: (option: T) => boolean;
}) {
  const [picked, setPicked] = useState<T>();
  // Picked, and not typed over since: the choice.
  const chosen = picked && typed === nameOf(picked) ? picked : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the parent's setter never changes.
  useEffect(() => onChange(chosen), [chosen]);
  const items = options.map((option) => ({ id: keyOf(option), option }));
  return (
    <>
      <ComboBox
        className="person-picker"
        items={items}
        inputValue={typed}
        onInputChange={onTypedChange}
        selectedKey={chosen ? keyOf(chosen) : null}
        onSelectionChange={(key) => {
          // Both the text and the choice are the picker's: the text becomes the name picked.
          const option = items.find((item) => item.id === key)?.option;
          setPicked(option);
          if (option) onTypedChange(nameOf(option));
        }}
        menuTrigger={menuTrigger}
        // Options found by a search arrive a moment after the typing: the list opens at once and fills in.
        allowsEmptyCollection
      >
        <Label>{label}</Label>
        <Group className="search-box">
          <Input spellCheck={false} />
        </Group>
        <Text slot="description" className="muted">
          {description}
        </Text>
        <Popover className="picker-popover">
          <ListBox<{ id: string; option: T }> renderEmptyState={() => <p className="muted">{emptyState}</p>}>
            {(item) => (
              <ListBoxItem id={item.id} textValue={nameOf(item.option)} isDisabled={isDisabled?.(item.option) ?? false}>
                {renderOption(item.option)}
              </ListBoxItem>
            )}
          </ListBox>
        </Popover>
      </ComboBox>
      <ErrorNote error={error} />
    </>
  );
}

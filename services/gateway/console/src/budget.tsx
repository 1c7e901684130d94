import type { Budget } from './api';
import { formatCost, formatInteger } from './format';
import { Field, FieldSet, type FieldRule } from './ui';

/** A budget as its form holds it: empty limits are no limit; without either, no budget. */
export interface BudgetForm {
  tokens: string;
  cost: string;
  period: Budget['period'];
}

export const NO_BUDGET: BudgetForm = { tokens: '', cost: '', period: 'month' };

export function budgetFormOf(budget: Budget | undefined): BudgetForm {
  if (!budget) return NO_BUDGET;
  return {
    tokens: budget.tokens === undefined ? '' : String(budget.tokens),
    cost: budget.cost === undefined ? '' : String(budget.cost),
    period: budget.period,
  };
}

/** The API's budget of a form: null (none, or removing one) when neither limit is set. */
export function budgetOf(form: BudgetForm): Budget | null {
  const tokens = form.tokens.trim();
  const cost = form.cost.trim();
  if (!tokens && !cost) return null;
  return {
    ...(tokens && { tokens: Number(tokens) }),
    ...(cost && { cost: Number(cost) }),
    period: form.period,
  };
}

const PERIOD_WORDS: Record<Budget['period'], string> = {
  day: 'day',
  week: 'week (from Monday)',
  month: 'month',
};

/** "50,000 tokens and $20.00 a day" */
export function describeBudget(budget: Budget | undefined): string {
  if (!budget) return '';
  const limits = [
    budget.tokens !== undefined && `${formatInteger(budget.tokens)} tokens`,
    budget.cost !== undefined && formatCost(budget.cost),
  ].filter(Boolean);
  return `${limits.join(' and ')} a ${budget.period}`;
}

/** A cost limit is more than 0 (the browser's min cannot say "exclusive"). */
export const positiveCost: FieldRule = (value) =>
  value.trim() === '' || Number(value) > 0 ? '' : 'Must be more than 0.';

/**
 * The id of the budget field showing an API error detail at `/<field>` or below it (the budget
 * as a whole goes to its first field), or undefined when the pointer is not this budget's.
 */
export function budgetFieldOf(
  pointer: string,
  field: string,
  idPrefix: string,
): string | undefined {
  if (pointer === `/${field}`) return `${idPrefix}-tokens`;
  const part = pointer.startsWith(`/${field}/`) ? pointer.slice(field.length + 2) : undefined;
  return part === 'tokens' || part === 'cost' || part === 'period'
    ? `${idPrefix}-${part}`
    : undefined;
}

/** Tokens, cost and period of a budget, each at its own field; both limits empty: no budget. */
export function BudgetFields(props: {
  idPrefix: string;
  legend: string;
  hint: string;
  value: BudgetForm;
  onChange: (value: BudgetForm) => void;
  errors: Record<string, string>;
}) {
  const { idPrefix: id, value, errors } = props;
  const set = (patch: Partial<BudgetForm>) => props.onChange({ ...value, ...patch });
  return (
    <FieldSet id={id} legend={props.legend} hint={props.hint} class="steps">
      <div class="form-row">
        <Field id={`${id}-tokens`} label="Tokens" error={errors[`${id}-tokens`]}>
          <input
            id={`${id}-tokens`}
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={value.tokens}
            onInput={(e) => set({ tokens: e.currentTarget.value })}
          />
        </Field>
        <Field id={`${id}-cost`} label="Cost ($)" error={errors[`${id}-cost`]}>
          <input
            id={`${id}-cost`}
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={value.cost}
            onInput={(e) => set({ cost: e.currentTarget.value })}
          />
        </Field>
        <Field id={`${id}-period`} label="Per" error={errors[`${id}-period`]}>
          <select
            id={`${id}-period`}
            value={value.period}
            onChange={(e) => set({ period: e.currentTarget.value as Budget['period'] })}
          >
            {Object.entries(PERIOD_WORDS).map(([period, words]) => (
              <option key={period} value={period}>
                {words}
              </option>
            ))}
          </select>
        </Field>
      </div>
    </FieldSet>
  );
}

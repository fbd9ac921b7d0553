// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { AmountInput, amountError } from '../src/components/AmountInput.tsx';

afterEach(cleanup);

function Harness({ showError = false, max }: { showError?: boolean; max?: string }) {
  const [value, setValue] = useState('');
  return <AmountInput label="Amount" value={value} onChange={setValue} showError={showError} max={max} />;
}

function field() {
  return screen.getByLabelText('Amount') as HTMLInputElement;
}

describe('AmountInput', () => {
  it('is a labelled text field with a decimal keyboard, never a number input', () => {
    render(<Harness />);
    expect(field().type).toBe('text');
    expect(field().inputMode).toBe('decimal');
    expect(field().getAttribute('aria-invalid')).toBeNull();
  });

  it('shows no error while typing the first time, then an inline error once the field is left', () => {
    render(<Harness />);
    fireEvent.change(field(), { target: { value: '1e3' } });
    expect(screen.queryByText(/exponent/)).toBeNull();
    fireEvent.blur(field());
    const error = screen.getByText(/exponent/);
    expect(field().getAttribute('aria-invalid')).toBe('true');
    expect(field().getAttribute('aria-describedby')).toContain(error.id);
  });

  it.each([
    ['.5', /leading zero/],
    ['1.', /after the decimal point/],
    ['007', /leading zeros/],
    ['1e3', /exponent/],
    ['-1', /above zero/],
    ['1.1234567', /6 decimal places/],
    ['1000000001', /at most 1,000,000,000/],
  ])('explains %j inline', (input, message) => {
    render(<Harness />);
    fireEvent.change(field(), { target: { value: input } });
    fireEvent.blur(field());
    expect(screen.getByText(message)).toBeTruthy();
  });

  it.each(['1', '0.5', '10.5', '0.000001', '1000000000', '999.999999'])(
    'accepts %j without an error',
    (input) => {
      render(<Harness showError />);
      fireEvent.change(field(), { target: { value: input } });
      fireEvent.blur(field());
      expect(document.querySelector('.field-error')).toBeNull();
      expect(field().getAttribute('aria-invalid')).toBeNull();
    },
  );

  it('asks for an amount after a submit attempt on an empty field', () => {
    render(<Harness showError />);
    expect(screen.getByText('Enter an amount.')).toBeTruthy();
  });

  it('clears the error when the value is corrected', () => {
    render(<Harness />);
    fireEvent.change(field(), { target: { value: '1.' } });
    fireEvent.blur(field());
    expect(document.querySelector('.field-error')).not.toBeNull();
    act(() => {
      fireEvent.change(field(), { target: { value: '1.5' } });
    });
    expect(document.querySelector('.field-error')).toBeNull();
  });

  it('refuses more than the balance it draws from, compared exactly', () => {
    render(<Harness max="100.000000" />);
    fireEvent.change(field(), { target: { value: '100.000001' } });
    fireEvent.blur(field());
    expect(screen.getByText(/more than the available balance \(100\.00 USDC\)/)).toBeTruthy();
    fireEvent.change(field(), { target: { value: '100' } });
    expect(document.querySelector('.field-error')).toBeNull();
  });

  it('amountError is null exactly for sendable values', () => {
    expect(amountError('5')).toBeNull();
    expect(amountError('5', '4.999999')).toMatch(/more than/);
    expect(amountError('5', '5.000000')).toBeNull();
  });
});

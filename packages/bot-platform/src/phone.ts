/**
 * API-DECISIONS: spaces, dashes, dots, parentheses and a leading `+` are removed before
 * validation; 8 to 15 digits (E.164 without the plus) must remain. Returns the digits, which are
 * also the WhatsApp user id on the platform.
 */
export function normalizePhone(input: string): string | null {
  const stripped = input.trim().replace(/[\s\-.()]/g, '').replace(/^\+/, '');
  return /^\d{8,15}$/.test(stripped) ? stripped : null;
}

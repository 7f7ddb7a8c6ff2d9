/**
 * The signed-in key lives in this tab's sessionStorage only: gone when the tab closes, never in a
 * cookie (so no request is authenticated by the browser on its own: nothing for CSRF to ride on).
 */
const STORAGE_KEY = 'gleaner.console.apiKey';

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

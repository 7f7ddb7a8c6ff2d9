import type { PdfPage } from './open-pdf.js';

interface StructNode {
  role?: string;
  type?: string;
  id?: string;
  children?: StructNode[];
}

/**
 * Marked-content id -> structure role (H1, P, LI, ...) from a tagged PDF's structure tree; the
 * role is that of the nearest element above the content. Empty for untagged pages.
 */
export async function structureRoles(page: PdfPage): Promise<Map<string, string>> {
  const roles = new Map<string, string>();
  const tree = (await page.getStructTree().catch(() => null)) as StructNode | null;
  const walk = (node: StructNode, role: string | undefined) => {
    if (node.type === 'content' && node.id && role) roles.set(node.id, role);
    const own = node.role && node.role !== 'Root' ? node.role : role;
    for (const child of node.children ?? []) walk(child, own);
  };
  if (tree) walk(tree, undefined);
  return roles;
}

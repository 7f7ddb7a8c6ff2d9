import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * Errors the nodes raise themselves are already NodeApiError/NodeOperationError; anything else is
 * the transport failing (service unreachable, connection reset) and is wrapped as an API error.
 */
export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeApiError(node, error as JsonObject, { itemIndex });
}

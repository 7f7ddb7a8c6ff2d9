/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs under jest in Node, not inside n8n */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { GleanerTrigger } from '../../nodes/GleanerTrigger/GleanerTrigger.node.js';
import { createWebhookContext, type GleanerCredentials } from './n8n-context.js';

export interface HostedDelivery {
	status: number;
	started: INodeExecutionData[] | undefined;
}

/**
 * Serves the trigger's webhook over real HTTP the way n8n's webhook server does in `onReceived`
 * mode: the raw body is kept as `req.rawBody`, the parsed JSON is the body data, and unless the
 * node answered itself the sender gets 200 once the workflow is started.
 */
export async function hostTrigger(options: {
	credentials: GleanerCredentials;
	families: string[];
	staticData: IDataObject;
	/** The workflow the trigger runs in (another than the Gleaner node's 'wf-test' unless a test says so). */
	workflowId?: string;
}) {
	const trigger = new GleanerTrigger();
	const deliveries: HostedDelivery[] = [];
	const server = http.createServer(async (req, res) => {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const rawBody = Buffer.concat(chunks);
		const { ctx } = createWebhookContext({
			description: trigger.description,
			credentials: options.credentials,
			parameters: { families: options.families },
			staticData: options.staticData,
			workflowId: options.workflowId ?? 'wf-trigger',
			request: { headers: req.headers, body: JSON.parse(rawBody.toString('utf8')) as IDataObject, rawBody },
			response: res,
		});
		const result = await trigger.webhook.call(ctx);
		const started = result.workflowData?.[0];
		if (!result.noWebhookResponse) res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"Workflow was started"}');
		deliveries.push({ status: res.statusCode, started });
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
		deliveries,
		close: () => {
			server.closeAllConnections();
			return new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

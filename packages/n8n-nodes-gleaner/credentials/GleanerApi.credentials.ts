import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * A Gleaner API key and the service it belongs to. Gleaner is self-hosted, so the base URL is part
 * of the credential rather than a constant. The key needs the scopes of what it is used for:
 * `scrape` and/or `parse` for the action node, `account` for the credential test and the trigger.
 */
export class GleanerApi implements ICredentialType {
	name = 'gleanerApi';

	displayName = 'Gleaner API';

	icon: Icon = { light: 'file:../icons/gleaner.svg', dark: 'file:../icons/gleaner.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-gleaner#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://localhost:8080',
			required: true,
			placeholder: 'https://gleaner.example.com',
			description: 'Where your Gleaner gateway answers, without a trailing path',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Created with "gleaner keys create". Scopes: scrape and/or parse for the Gleaner node, account for the Gleaner Trigger; the credential test passes for any valid key.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'x-api-key': '={{$credentials.apiKey}}',
			},
		},
	};

	// `GET /account` is a cheap authenticated read that any valid key may make, whatever its scopes: 401 for an unknown key.
	// Without rules n8n shows only the HTTP reason ("Unauthorized"); these say what Gleaner said and what to do.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/account',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'Gleaner refused the API key (E004: Missing or invalid API key): it is unknown or was revoked. Create one with "gleaner keys create --account <name>".',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No Gleaner gateway answered GET /account at this Base URL: check it (e.g. https://gleaner.example.com, without a path).',
				},
			},
		],
	};
}

// SPDX-License-Identifier: GPL-2.0
/*
 * validate-k8s.cjs FILE...: every document of each YAML FILE through the
 * validator of its kind, generated from the Kubernetes OpenAPI schema
 * (kubernetes-models) or the Prometheus operator's CRDs
 * (@kubernetes-models/prometheus-operator): types, required fields, enums
 * and formats. Prints "ok KIND NAME" or "FAIL FILE KIND NAME: errors" per
 * document; exits 1 when one fails or a kind is unknown.
 * Run by deploy/check.sh with NODE_PATH at the packages of package.json.
 */
'use strict';
const fs = require('fs');
const YAML = require('yaml');

function model(apiVersion, kind) {
	const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
	const pkg = group.endsWith('monitoring.coreos.com')
		? `@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`
		: `kubernetes-models/${group ? group + '/' : ''}${version}/${kind}`;
	return require(pkg)[kind];
}

let failed = 0;
for (const file of process.argv.slice(2)) {
	const docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'));
	for (const doc of docs) {
		if (doc.errors.length) {
			console.log(`FAIL ${file}: YAML: ${doc.errors[0].message}`);
			failed++;
			continue;
		}
		const obj = doc.toJSON();
		if (!obj)
			continue;
		const what = `${obj.kind} ${obj.metadata && obj.metadata.name}`;
		let Kind;
		try {
			Kind = model(String(obj.apiVersion), String(obj.kind));
		} catch (e) {
			console.log(`FAIL ${file} ${what}: no schema for ${obj.apiVersion} ${obj.kind}`);
			failed++;
			continue;
		}
		try {
			new Kind(obj).validate();
			console.log(`ok ${what}`);
		} catch (e) {
			console.log(`FAIL ${file} ${what}: ${String(e.message).split('\n').slice(0, 5).join('; ')}`);
			failed++;
		}
	}
}
process.exit(failed ? 1 : 0);

'use strict';

// deploy/kubernetes/qr-server.yaml read as a cluster's admission reads it:
// the Pod Security "restricted" profile's fields on the pod and on every
// container (runAsNonRoot, no privilege escalation, every capability
// dropped, the runtime's default seccomp filter), and /metrics on a
// container port of its own that the Service does not publish, with the
// scrape annotation pointing at it. (image.test.js plays the manifest on
// real podman.)
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const yaml = require('js-yaml');
const { ROOT } = require('../helpers/servers');

const MANIFEST = path.join(ROOT, 'deploy/kubernetes/qr-server.yaml');
const documents = yaml.loadAll(fs.readFileSync(MANIFEST, 'utf8'));
const find = (kind) => {
  const found = documents.filter((d) => d?.kind === kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return found[0];
};

describe('deploy/kubernetes/qr-server.yaml', () => {
  const deployment = find('Deployment');
  const service = find('Service');
  const pod = deployment.spec.template.spec;
  const containers = [...pod.containers, ...(pod.initContainers ?? [])];

  it('meets Pod Security "restricted" on the pod and every container', () => {
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.notEqual(pod.securityContext.runAsUser, 0);
    assert.equal(pod.hostNetwork ?? false, false);
    assert.equal(pod.hostPID ?? false, false);
    assert.equal(pod.hostIPC ?? false, false);
    for (const container of containers) {
      const context = { ...container.securityContext };
      const seccomp = context.seccompProfile ?? pod.securityContext.seccompProfile;
      assert.ok(
        ['RuntimeDefault', 'Localhost'].includes(seccomp?.type),
        `${container.name}: seccompProfile ${JSON.stringify(seccomp)}`,
      );
      assert.equal(context.allowPrivilegeEscalation, false, `${container.name}: allowPrivilegeEscalation`);
      assert.deepEqual(context.capabilities?.drop, ['ALL'], `${container.name}: capabilities.drop`);
      // "restricted" allows adding back only NET_BIND_SERVICE; nothing here needs it.
      assert.deepEqual(context.capabilities?.add ?? [], [], `${container.name}: capabilities.add`);
      assert.notEqual(context.privileged, true, `${container.name}: privileged`);
      assert.notEqual(
        context.runAsNonRoot ?? pod.securityContext.runAsNonRoot,
        false,
        `${container.name}: runAsNonRoot`,
      );
      assert.notEqual(context.runAsUser ?? pod.securityContext.runAsUser, 0, `${container.name}: runAsUser`);
      assert.equal(context.readOnlyRootFilesystem, true, `${container.name}: readOnlyRootFilesystem`);
    }
    assert.equal((pod.volumes ?? []).filter((v) => v.hostPath).length, 0, 'no hostPath volume');
  });

  it('serves /metrics on a container port of its own, scraped there and not in the Service', () => {
    const [container] = pod.containers;
    const ports = Object.fromEntries(container.ports.map((p) => [p.name, p.containerPort]));
    assert.ok(ports.http && ports.metrics && ports.http !== ports.metrics, JSON.stringify(ports));
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
    assert.equal(Number(env.PORT), ports.http);
    assert.equal(Number(env.METRICS_PORT), ports.metrics);
    const annotations = deployment.spec.template.metadata.annotations;
    assert.equal(Number(annotations['prometheus.io/port']), ports.metrics);
    assert.equal(annotations['prometheus.io/path'], '/metrics');
    const published = service.spec.ports.map((p) => p.targetPort);
    assert.deepEqual(published, ['http'], 'the Service publishes the public port only');
    // The probes ask the public port's /healthz, which the public port keeps.
    for (const probe of [container.readinessProbe, container.livenessProbe]) assert.equal(probe.httpGet.port, 'http');
  });
});

// otlp-receiver.mjs - an OTLP/JSON receiver and a traced agent, both built from the official
// OpenTelemetry packages (sdk-trace-base, otlp-transformer), so belay's OTLP output is judged
// by the reference implementation, not by belay's own parser.
//
//   node otlp-receiver.mjs check FILE            each line an ExportTraceServiceRequest
//   node otlp-receiver.mjs serve --record FILE [--max N] [--seconds S]
//                                                prints "listening PORT", accepts POST /v1/traces
//   node otlp-receiver.mjs agent --n N --out FILE
//                                                an agent's spans: prints one traceparent per tool
//                                                call, writes the agent's OTLP/JSON export
//
// The check: every span is rebuilt with the SDK (a real tracer, ids through an IdGenerator,
// the parent as a remote span context, attributes, events, status, times), serialised again
// with the official JsonTraceSerializer, and the two must be equal, field by field, with
// proto3's defaults for omitted fields. Ids must be lowercase hex (the SDK's own validity
// check), and belay's 64-bit integers must be decimal strings, as OTLP/JSON says.
import fs from 'node:fs';
import http from 'node:http';
import { trace, ROOT_CONTEXT, SpanKind, TraceFlags, isValidTraceId, isValidSpanId, defaultTextMapSetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, AlwaysOnSampler } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';

class Fail extends Error {}
const need = (cond, msg) => { if (!cond) throw new Fail(msg); };

function int64(v, where) {
  need(typeof v === 'string' && /^[0-9]+$/.test(v), `${where}: a 64-bit integer must be a decimal string in OTLP/JSON, got ${JSON.stringify(v)}`);
  return BigInt(v);
}
const hr = (ns) => [Number(ns / 1000000000n), Number(ns % 1000000000n)];

function anyValue(v, where) {
  need(v && typeof v === 'object', `${where}: not an AnyValue`);
  const keys = Object.keys(v);
  need(keys.length === 1, `${where}: an AnyValue holds exactly one of stringValue/intValue/...: ${JSON.stringify(v)}`);
  const k = keys[0];
  if (k === 'stringValue') { need(typeof v[k] === 'string', `${where}: stringValue`); return v[k]; }
  if (k === 'boolValue') { need(typeof v[k] === 'boolean', `${where}: boolValue`); return v[k]; }
  if (k === 'doubleValue') { need(typeof v[k] === 'number', `${where}: doubleValue`); return v[k]; }
  if (k === 'intValue') { const n = int64(v[k], where); need(n <= BigInt(Number.MAX_SAFE_INTEGER), `${where}: intValue too large for this check`); return Number(n); }
  if (k === 'arrayValue') return (v[k].values || []).map((x, i) => anyValue(x, `${where}[${i}]`));
  throw new Fail(`${where}: ${k} is not a span attribute value`);
}
const attrs = (list, where) => Object.fromEntries((list || []).map((kv, i) => [kv.key, anyValue(kv.value, `${where}.attributes[${i}] (${kv.key})`)]));

// proto3 JSON: an omitted field is its default; int64 may be spelled as a number or a string.
const INT64 = new Set(['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'intValue']);
function norm(v, key) {
  if (Array.isArray(v)) return v.map((x) => norm(x));
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) {
      const x = norm(v[k], k);
      if (x === undefined || x === 0 || x === '' || (Array.isArray(x) && !x.length)) continue;
      o[k] = x;
    }
    return o;
  }
  if (INT64.has(key) && (typeof v === 'number' || typeof v === 'string')) return String(v);
  return v;
}
function diff(a, b, path) {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = diff(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path}: belay sent ${JSON.stringify(a)}, the official serializer gives ${JSON.stringify(b)}`;
}

// Rebuilds every span with the SDK and compares the official serialisation with what came.
export function checkRequest(req) {
  need(req && Array.isArray(req.resourceSpans), 'not an ExportTraceServiceRequest (resourceSpans)');
  const summary = [];
  req.resourceSpans.forEach((rs, ri) => {
    const exporter = new InMemorySpanExporter();
    const ids = { trace: null, span: null };
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes(attrs(rs.resource?.attributes, `resourceSpans[${ri}].resource`)),
      sampler: new AlwaysOnSampler(),
      idGenerator: { generateTraceId: () => ids.trace, generateSpanId: () => ids.span },
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const sent = [];
    (rs.scopeSpans || []).forEach((ss, si) => {
      const tracer = provider.getTracer(ss.scope?.name ?? '', ss.scope?.version);
      (ss.spans || []).forEach((s, k) => {
        const where = `resourceSpans[${ri}].scopeSpans[${si}].spans[${k}] (${s.name})`;
        need(isValidTraceId(s.traceId || ''), `${where}: traceId ${JSON.stringify(s.traceId)} is not 32 lowercase hex digits (OTLP/JSON ids are hex, never base64)`);
        need(isValidSpanId(s.spanId || ''), `${where}: spanId ${JSON.stringify(s.spanId)} is not 16 lowercase hex digits`);
        if (s.parentSpanId) need(isValidSpanId(s.parentSpanId), `${where}: parentSpanId is not 16 lowercase hex digits`);
        const start = int64(s.startTimeUnixNano, `${where}.startTimeUnixNano`);
        const end = int64(s.endTimeUnixNano, `${where}.endTimeUnixNano`);
        ids.trace = s.traceId;
        ids.span = s.spanId;
        // flags: W3C trace flags | HAS_IS_REMOTE (0x100) | IS_REMOTE (0x200), as the SDK writes them
        const isRemote = ((s.flags ?? 0) & 0x300) === 0x300;
        const parent = s.parentSpanId
          ? trace.setSpanContext(ROOT_CONTEXT, { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote })
          : ROOT_CONTEXT;
        need(Number.isInteger(s.kind) && s.kind >= 1 && s.kind <= 5, `${where}: kind ${s.kind} is not a SpanKind`);
        const span = tracer.startSpan(s.name, { kind: s.kind - 1, startTime: hr(start), attributes: attrs(s.attributes, where) }, parent);
        (s.events || []).forEach((ev, ei) => span.addEvent(ev.name, attrs(ev.attributes, `${where}.events[${ei}]`), hr(int64(ev.timeUnixNano, `${where}.events[${ei}].timeUnixNano`))));
        if (s.status) span.setStatus({ code: s.status.code ?? 0, message: s.status.message });
        span.end(hr(end));
        sent.push({ where, s });
      });
    });
    const official = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())));
    const byId = new Map();
    for (const ors of official.resourceSpans)
      for (const oss of ors.scopeSpans) for (const os of oss.spans) byId.set(os.spanId, { os, ors, oss });
    for (const { where, s } of sent) {
      const o = byId.get(s.spanId);
      need(o, `${where}: the SDK did not record it`);
      const d = diff(norm(s), norm(o.os), where);
      need(!d, d);
      const dr = diff(norm(rs.resource), norm(o.ors.resource), `resourceSpans[${ri}].resource`);
      need(!dr, dr);
      summary.push({ name: s.name, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || null,
                     attributes: attrs(s.attributes, where), status: s.status || {}, flags: s.flags ?? 0,
                     events: (s.events || []).length });
    }
  });
  return summary;
}

function check(body) {
  try {
    const req = JSON.parse(body);
    return { ok: true, spans: checkRequest(req) };
  } catch (e) {
    if (e instanceof Fail || e instanceof SyntaxError) return { ok: false, reason: e.message };
    throw e;
  }
}

const [mode, ...rest] = process.argv.slice(2);
const opt = (name, dflt) => { const i = rest.indexOf(name); return i >= 0 ? rest[i + 1] : dflt; };

if (mode === 'check') {
  const lines = fs.readFileSync(rest[0], 'utf8').split('\n').filter((l) => l.length);
  const results = lines.map(check);
  process.stdout.write(JSON.stringify(results) + '\n');
  process.exit(results.length && results.every((r) => r.ok) ? 0 : 1);
} else if (mode === 'serve') {
  const record = opt('--record');
  const max = Number(opt('--max', '1'));
  const seconds = Number(opt('--seconds', '60'));
  let seen = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      let r;
      if (req.method !== 'POST' || req.url !== '/v1/traces') r = { ok: false, reason: `${req.method} ${req.url} is not POST /v1/traces` };
      else if (!(req.headers['content-type'] || '').startsWith('application/json')) r = { ok: false, reason: `content-type ${req.headers['content-type']}` };
      else r = check(body);
      r.headers = { 'x-test-key': req.headers['x-test-key'] || null };
      fs.appendFileSync(record, JSON.stringify(r) + '\n');
      res.writeHead(r.ok ? 200 : 400, { 'Content-Type': 'application/json' });
      res.end(r.ok ? '{"partialSuccess":{}}' : JSON.stringify({ code: 3, message: r.reason }));
      if (++seen >= max) server.close();
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
  setTimeout(() => { server.close(); process.exit(0); }, seconds * 1000).unref();
} else if (mode === 'agent') {
  const n = Number(opt('--n', '1'));
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'agent' }),
                                             spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('agent', '1.0.0');
  const root = tracer.startSpan('agent.session');
  const prop = new W3CTraceContextPropagator();
  for (let i = 0; i < n; i++) {
    const s = tracer.startSpan('agent.tool_call', { kind: SpanKind.CLIENT }, trace.setSpan(ROOT_CONTEXT, root));
    const carrier = {};
    prop.inject(trace.setSpan(ROOT_CONTEXT, s), carrier, defaultTextMapSetter);
    process.stdout.write(carrier.traceparent + '\n');
    s.end();
  }
  root.end();
  fs.writeFileSync(opt('--out'), new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())) + '\n');
} else {
  process.stderr.write('usage: otlp-receiver.mjs check FILE | serve --record FILE [--max N] [--seconds S] | agent --n N --out FILE\n');
  process.exit(2);
}

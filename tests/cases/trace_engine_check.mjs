// SPDX-License-Identifier: MIT
// tests/cases/trace_engine_check.mjs: loads a trace with the Chrome DevTools trace engine (npm @paulirish/trace_engine), an independent consumer; prints what the runner asserts on.
// usage: node trace_engine_check.mjs ENGINE_DIR TRACE.json NAME...
import fs from 'node:fs';
import path from 'node:path';
import url from 'node:url';

const [engineDir, file, ...names] = process.argv.slice(2);
const Trace = await import(url.pathToFileURL(path.join(engineDir, 'models/trace/trace.js')).href);
globalThis.DOMRect ??= class { constructor(x = 0, y = 0, w = 0, h = 0) { Object.assign(this, {x, y, width: w, height: h}); } };
const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
const events = doc.traceEvents ?? doc;
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const parsed = model.parsedTrace();
if (!parsed) throw new Error('the trace engine produced no parsed trace');
const bounds = parsed.Meta?.traceBounds ?? parsed.data?.Meta?.traceBounds;
if (!bounds) throw new Error("no trace bounds: " + Object.keys(parsed).join(","));
const kept = model.rawTraceEvents ? model.rawTraceEvents() : events;
const count = {};
for (const e of kept) if (e.ph === 'X') count[e.name] = (count[e.name] ?? 0) + 1;
for (const n of names) console.log(`${n} events=${count[n] ?? 0}`);
console.log(`parsed events=${kept.length} span_us=${bounds.range}`);

// Tint, the WGSL compiler of Chromium-based browsers, on the shader the harness builds its
// pipelines from: Dawn (the npm package `webgpu`, pinned in package.json) compiles the module and
// builds the compute and the render pipeline with the layouts the harness uses, on Dawn's OpenGL
// backend (a compatibility-mode adapter: llvmpipe through EGL without a display).
//
// stdin, JSON: { code, label, constants: { key: value }, compute: null | { entry, groups },
//                render: null | { vertex, fragment, buffers, groups, format } }
//   groups: [{ group, entries: [{ binding, visibility, type, minBindingSize }
//     | { binding, visibility, texture: { sampleType, viewDimension, multisampled } }
//     | { binding, visibility, sampler: { type } }] }]
//   buffers: [{ arrayStride, attributes: [{ format, offset, shaderLocation }] }]
// stdout, JSON: { adapter, module: [{ type, line, column, message }],
//                 compute: null | [error text], render: null | [error text] }
// Exit status 1 when Tint or Dawn reports an error; 2 when no adapter or no answer. Nothing is
// written and nothing is fetched; the caller's deadline kills a run that hangs.

// Mesa's EGL reads this when Dawn opens the display: no window system is needed.
process.env.EGL_PLATFORM ??= 'surfaceless';
// Tint's verdict does not depend on the stack the suite runs on: Mesa's driver choices for the
// zink and softpipe runs (softpipe offers Dawn no adapter) are not passed on to Dawn.
for (const name of ['LIBGL_ALWAYS_SOFTWARE', 'GALLIUM_DRIVER', 'MESA_LOADER_DRIVER_OVERRIDE',
  'MESA_GL_VERSION_OVERRIDE', 'MESA_GLSL_VERSION_OVERRIDE']) {
  delete process.env[name];
}
const { create, globals } = await import('webgpu');
Object.assign(globalThis, globals);

function fail(why) {
  process.stdout.write(JSON.stringify({ error: why }) + '\n');
  process.exit(2);
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const job = JSON.parse(input);

const gpu = create(['backend=opengl']);
const adapter = await gpu.requestAdapter({ featureLevel: 'compatibility' });
if (!adapter) fail("Dawn found no adapter on its OpenGL backend (EGL_PLATFORM=surfaceless; Mesa's llvmpipe: Debian packages libegl1 libegl-mesa0 libgl1-mesa-dri)");
// Every limit the adapter has, as the harness asks of wgpu: a vertex stage may read storage.
const limits = {};
for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(adapter.limits))) {
  if (typeof adapter.limits[name] === 'number') limits[name] = adapter.limits[name];
}
const device = await adapter.requestDevice({ requiredLimits: limits });
const info = adapter.info;

// Runs `build` in error scopes; the errors it raised, as text.
async function scoped(build) {
  for (const filter of ['validation', 'internal', 'out-of-memory']) device.pushErrorScope(filter);
  try {
    build();
  } catch (e) {
    return [String(e && e.message ? e.message : e)];
  }
  const errors = [];
  for (let i = 0; i < 3; i++) {
    const e = await device.popErrorScope();
    if (e) errors.push(e.message.trim());
  }
  return errors;
}

// The bind group layouts of a pipeline layout, a group in between an empty one, and the bytes
// of immediate data the harness sets (push constants).
function layout(groups) {
  const count = Math.max(0, ...groups.map((g) => g.group + 1));
  const layouts = [];
  for (let i = 0; i < count; i++) {
    const entries = (groups.find((g) => g.group === i)?.entries ?? []).map((e) => {
      const entry = { binding: e.binding, visibility: e.visibility };
      if (e.texture) entry.texture = e.texture;
      else if (e.sampler) entry.sampler = e.sampler;
      else entry.buffer = { type: e.type, minBindingSize: e.minBindingSize };
      return entry;
    });
    layouts.push(device.createBindGroupLayout({ entries }));
  }
  const descriptor = { bindGroupLayouts: layouts };
  if (job.immediateSize) descriptor.immediateSize = job.immediateSize;
  return device.createPipelineLayout(descriptor);
}

let module;
const moduleErrors = await scoped(() => {
  module = device.createShaderModule({ code: job.code, label: job.label });
});
const messages = (await module.getCompilationInfo()).messages.map((m) => ({
  type: m.type,
  line: m.lineNum,
  column: m.linePos,
  message: m.message,
}));
// An error the compilation info lacks (it has Tint's) still counts.
const listed = messages.some((m) => m.type === 'error');
for (const e of moduleErrors) {
  if (!listed) messages.push({ type: 'error', line: 0, column: 0, message: e });
}
const broken = messages.some((m) => m.type === 'error');

const result = {
  adapter: `${info.vendor} ${info.architecture} ${info.device} ${info.description}`.trim(),
  module: messages,
  compute: null,
  render: null,
};
if (!broken && job.compute) {
  const c = job.compute;
  result.compute = await scoped(() =>
    device.createComputePipeline({
      layout: layout(c.groups),
      compute: { module, entryPoint: c.entry, constants: job.constants },
    }),
  );
}
if (!broken && job.render) {
  const r = job.render;
  result.render = await scoped(() =>
    device.createRenderPipeline({
      layout: layout(r.groups),
      vertex: { module, entryPoint: r.vertex, constants: job.constants, buffers: r.buffers },
      fragment: {
        module,
        entryPoint: r.fragment,
        constants: job.constants,
        targets: [{ format: r.format }],
      },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
    }),
  );
}
device.destroy();
process.stdout.write(JSON.stringify(result) + '\n');
const failed = broken || (result.compute ?? []).length > 0 || (result.render ?? []).length > 0;
// Exit at once: Dawn's threads would keep the process alive.
process.exit(failed ? 1 : 0);

//! One device, queue and pipeline set per adapter, with error capture around every GPU step.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{AdapterInfo, GpuError};
use crate::shader::Shader;

/// The pipelines built from the shader under test, with the layouts the contract fixes.
pub struct Pipelines {
    pub compute_layout: wgpu::BindGroupLayout,
    pub compute: wgpu::ComputePipeline,
    pub render_layout: wgpu::BindGroupLayout,
    pub render: wgpu::RenderPipeline,
}

/// Everything a trial needs on one adapter; built once and shared by all its trials.
pub struct Context {
    pub info: AdapterInfo,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// The pipelines, or why the shader did not build on this adapter.
    pub pipelines: Result<Pipelines, String>,
    /// Deadline for any one wait on the GPU.
    pub timeout: Duration,
    /// Buffers and targets reused across cases on this adapter.
    pub pool: Arc<super::pool::Pool>,
    /// Errors raised outside any error scope (wgpu would otherwise panic on them).
    uncaptured: Arc<Mutex<Vec<String>>>,
    lost: Arc<Mutex<Option<String>>>,
}

/// The render target format: the goldens are 8-bit RGBA.
pub const TARGET_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

impl Context {
    pub fn new(
        adapter: &wgpu::Adapter,
        info: AdapterInfo,
        shader: &Shader,
        timeout: Duration,
    ) -> Result<Context, GpuError> {
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("skinproof"),
            // Timestamps where the adapter has them, for the benchmarks; nothing else beyond WebGPU.
            required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
            // The adapter's own limits, so large meshes are limited by the hardware, not by defaults.
            required_limits: adapter.limits(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| GpuError::Device(e.to_string()))?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.to_string());
        }));
        let lost = Arc::new(Mutex::new(None));
        let lost_sink = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            *lost_sink.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(format!("{reason:?}: {message}"));
        });
        let mut ctx = Context {
            info,
            device,
            queue,
            pipelines: Err("not built yet".into()),
            timeout,
            pool: Default::default(),
            uncaptured,
            lost,
        };
        ctx.pipelines = ctx
            .scoped(|| Ok(build_pipelines(&ctx.device, shader)))
            .map_err(|e| match e {
                GpuError::Validation(m) | GpuError::OutOfMemory(m) => m,
                other => other.to_string(),
            });
        Ok(ctx)
    }

    /// The same device, queue, error sinks and buffer pool, with pipelines built from another
    /// shader: many shaders can be tested on one device.
    pub fn with_shader(&self, shader: &Shader) -> Context {
        let mut ctx = Context {
            info: self.info.clone(),
            device: self.device.clone(),
            queue: self.queue.clone(),
            pipelines: Err("not built yet".into()),
            timeout: self.timeout,
            pool: self.pool.clone(),
            uncaptured: self.uncaptured.clone(),
            lost: self.lost.clone(),
        };
        ctx.pipelines = ctx
            .scoped(|| Ok(build_pipelines(&ctx.device, shader)))
            .map_err(|e| match e {
                GpuError::Validation(m) | GpuError::OutOfMemory(m) => m,
                other => other.to_string(),
            });
        ctx
    }

    /// The pipelines, or a Pipeline error saying why there are none.
    pub fn pipelines(&self) -> Result<&Pipelines, GpuError> {
        self.pipelines
            .as_ref()
            .map_err(|m| GpuError::Pipeline(m.clone()))
    }

    /// Runs `f` inside validation and out-of-memory error scopes; any error they catch, a lost
    /// device, or an uncaptured error raised meanwhile, turns the result into an error.
    pub fn scoped<T>(&self, f: impl FnOnce() -> Result<T, GpuError>) -> Result<T, GpuError> {
        if let Some(lost) = self.lost() {
            return Err(GpuError::Lost(lost));
        }
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = f();
        let validation = pollster::block_on(validation.pop());
        let oom = pollster::block_on(oom.pop());
        if let Some(e) = validation {
            return Err(GpuError::Validation(error_text(&e)));
        }
        if let Some(e) = oom {
            return Err(GpuError::OutOfMemory(error_text(&e)));
        }
        if let Some(lost) = self.lost() {
            return Err(GpuError::Lost(lost));
        }
        let stray: Vec<String> =
            std::mem::take(&mut *self.uncaptured.lock().unwrap_or_else(|p| p.into_inner()));
        if !stray.is_empty() {
            return Err(GpuError::Validation(stray.join("\n")));
        }
        result
    }

    /// Whether the device was lost: its trials failed, and the adapter needs a new device.
    pub fn is_lost(&self) -> bool {
        self.lost().is_some()
    }

    fn lost(&self) -> Option<String> {
        self.lost.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// wgpu's error with its chain of sources, which hold the useful part (e.g. naga's diagnostic).
fn error_text(e: &wgpu::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

fn storage(
    binding: u32,
    visibility: wgpu::ShaderStages,
    read_only: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            // Pipeline creation then refuses a shader whose uniform needs more than the contract's.
            min_binding_size: wgpu::BufferSize::new(crate::shader::UNIFORM_BYTES as u64),
        },
        count: None,
    }
}

/// The vertex layout of the render path: position vec3, joints `vec4<u32>`, weights `vec4<f32>`.
pub const VERTEX_BUFFERS: [wgpu::VertexBufferLayout<'static>; 3] = [
    wgpu::VertexBufferLayout {
        array_stride: 12,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &[wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 0,
            shader_location: 0,
        }],
    },
    wgpu::VertexBufferLayout {
        array_stride: 16,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &[wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Uint32x4,
            offset: 0,
            shader_location: 1,
        }],
    },
    wgpu::VertexBufferLayout {
        array_stride: 16,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &[wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 0,
            shader_location: 2,
        }],
    },
];

fn build_pipelines(device: &wgpu::Device, shader: &Shader) -> Pipelines {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("shader under test"),
        source: wgpu::ShaderSource::Wgsl(shader.source.as_str().into()),
    });
    let cs = wgpu::ShaderStages::COMPUTE;
    let compute_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("compute bindings 0-5"),
        entries: &[
            storage(0, cs, true),
            storage(1, cs, true),
            storage(2, cs, true),
            storage(3, cs, true),
            storage(4, cs, false),
            uniform(5, cs),
        ],
    });
    let vs = wgpu::ShaderStages::VERTEX;
    let render_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("render bindings 0 and 6"),
        entries: &[storage(0, vs, true), uniform(6, vs)],
    });
    let layout = |bgl: &wgpu::BindGroupLayout| {
        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(bgl)],
            immediate_size: 0,
        })
    };
    let compute = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("skin_compute"),
        layout: Some(&layout(&compute_layout)),
        module: &module,
        entry_point: Some("skin_compute"),
        compilation_options: Default::default(),
        cache: None,
    });
    let render = render_pipeline(device, &render_layout, &module, "vs_skin", "fs_skin");
    Pipelines {
        compute_layout,
        compute,
        render_layout,
        render,
    }
}

/// A render pipeline over the contract's render bindings and vertex layout, drawing triangles
/// into the RGBA8 target; `vs` and `fs` name the entry points in `module`.
pub fn render_pipeline(
    device: &wgpu::Device,
    bindings: &wgpu::BindGroupLayout,
    module: &wgpu::ShaderModule,
    vs: &str,
    fs: &str,
) -> wgpu::RenderPipeline {
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(bindings)],
        immediate_size: 0,
    });
    let buffers: Vec<Option<wgpu::VertexBufferLayout>> =
        VERTEX_BUFFERS.iter().cloned().map(Some).collect();
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(vs),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vs),
            compilation_options: Default::default(),
            buffers: &buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fs),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: TARGET_FORMAT,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

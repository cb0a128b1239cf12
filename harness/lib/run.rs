//! One case on one adapter: both GPU paths, each computed once, when a check first needs it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use image::RgbaImage;

use crate::case::Case;
use crate::gpu::compute::Skinned;
use crate::gpu::worker::on_device;
use crate::gpu::{self, Context, GpuError};
use crate::scene::Scene;

/// Where a run gets its device each time a path needs one: the adapter's current device, which
/// is a fresh one after a hung step abandoned the last.
pub type Devices = Box<dyn Fn() -> Result<Arc<Context>, GpuError> + Send + Sync>;

/// Everything the checks of one (case, adapter) compare; the CPU side lives in the shared scene.
/// Each path is one job on the adapter's device thread, run by the first check that needs it: a
/// path that hangs is TIMEOUT for its own checks as soon as the deadline passes, and the other
/// path runs on a fresh device.
pub struct Run {
    pub scene: Arc<Scene>,
    devices: Devices,
    /// The render target: width, height.
    size: (u32, u32),
    /// The compute path at the bind pose, then posed.
    compute: OnceLock<[Result<Skinned, GpuError>; 2]>,
    /// The render path at the bind pose, posed, and posed again (a bit-for-bit difference is
    /// nondeterminism).
    render: OnceLock<[Result<RgbaImage, GpuError>; 3]>,
    /// Microseconds the paths took, and whether that was handed out.
    spent_us: AtomicU64,
    timed: AtomicBool,
}

impl Run {
    pub fn new(devices: Devices, case: &Case, scene: Arc<Scene>) -> Run {
        Run {
            scene,
            devices,
            size: (case.render.width, case.render.height),
            compute: OnceLock::new(),
            render: OnceLock::new(),
            spent_us: AtomicU64::new(0),
            timed: AtomicBool::new(false),
        }
    }

    pub fn gpu_bind(&self) -> &Result<Skinned, GpuError> {
        &self.compute()[0]
    }

    pub fn gpu_posed(&self) -> &Result<Skinned, GpuError> {
        &self.compute()[1]
    }

    pub fn image_bind(&self) -> &Result<RgbaImage, GpuError> {
        &self.render()[0]
    }

    pub fn image_posed(&self) -> &Result<RgbaImage, GpuError> {
        &self.render()[1]
    }

    pub fn image_posed_again(&self) -> &Result<RgbaImage, GpuError> {
        &self.render()[2]
    }

    /// Milliseconds both paths took, once both ran; `None` before, and after the first call.
    pub fn take_ms(&self) -> Option<f64> {
        let done = self.compute.get().is_some() && self.render.get().is_some();
        (done && !self.timed.swap(true, Ordering::Relaxed))
            .then(|| self.spent_us.load(Ordering::Relaxed) as f64 / 1e3)
    }

    fn compute(&self) -> &[Result<Skinned, GpuError>; 2] {
        self.compute.get_or_init(|| {
            let s = self.scene.clone();
            self.timed(|| {
                on_device(&*self.devices, "the compute path", move |ctx| {
                    [&s.bind_palette, &s.posed_palette]
                        .map(|p| gpu::compute::skin_guarded(ctx, p, &s.mesh))
                })
            })
        })
    }

    fn render(&self) -> &[Result<RgbaImage, GpuError>; 3] {
        self.render.get_or_init(|| {
            let (s, (w, h)) = (self.scene.clone(), self.size);
            self.timed(|| {
                on_device(&*self.devices, "the render path", move |ctx| {
                    [&s.bind_palette, &s.posed_palette, &s.posed_palette]
                        .map(|p| gpu::render::render(ctx, p, &s.mesh, s.view, w, h))
                })
            })
        })
    }

    /// A path's results, or its error for each; its time is added to the run's.
    fn timed<T, const N: usize>(
        &self,
        path: impl FnOnce() -> Result<[Result<T, GpuError>; N], GpuError>,
    ) -> [Result<T, GpuError>; N] {
        let start = Instant::now();
        let out = path().unwrap_or_else(|e| std::array::from_fn(|_| Err(e.clone())));
        self.spent_us
            .fetch_add(start.elapsed().as_micros() as u64, Ordering::Relaxed);
        out
    }
}

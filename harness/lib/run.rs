//! One case on one adapter: both GPU paths, computed once for all its checks.

use std::sync::Arc;

use image::RgbaImage;

use crate::case::Case;
use crate::gpu::compute::Skinned;
use crate::gpu::{self, Context, GpuError};
use crate::scene::Scene;

/// Everything the checks of one (case, adapter) compare; the CPU side lives in the shared scene.
pub struct Run {
    pub scene: Arc<Scene>,
    pub gpu_bind: Result<Skinned, GpuError>,
    pub gpu_posed: Result<Skinned, GpuError>,
    pub image_bind: Result<RgbaImage, GpuError>,
    pub image_posed: Result<RgbaImage, GpuError>,
    /// The posed frame rendered a second time: a bit-for-bit difference is nondeterminism.
    pub image_posed_again: Result<RgbaImage, GpuError>,
}

impl Run {
    pub fn execute(ctx: &Context, case: &Case, scene: Arc<Scene>) -> Run {
        let mesh = &scene.mesh;
        let (w, h) = (case.render.width, case.render.height);
        Run {
            gpu_bind: gpu::compute::skin_guarded(ctx, &scene.bind_palette, mesh),
            gpu_posed: gpu::compute::skin_guarded(ctx, &scene.posed_palette, mesh),
            image_bind: gpu::render::render(ctx, &scene.bind_palette, mesh, scene.view, w, h),
            image_posed: gpu::render::render(ctx, &scene.posed_palette, mesh, scene.view, w, h),
            image_posed_again: gpu::render::render(
                ctx,
                &scene.posed_palette,
                mesh,
                scene.view,
                w,
                h,
            ),
            scene,
        }
    }
}

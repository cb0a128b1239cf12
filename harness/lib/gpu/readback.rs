//! Maps a buffer for reading, with a deadline: a hang becomes a Timeout, never a stuck run.

use std::sync::mpsc;

use super::{Context, GpuError};

/// Waits for the queue, maps `buffer` and copies out its first `size` bytes.
pub fn read(ctx: &Context, buffer: &wgpu::Buffer, size: u64) -> Result<Vec<u8>, GpuError> {
    let slice = buffer.slice(..size);
    let (tx, rx) = mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    match ctx.device.poll(wgpu::PollType::Wait {
        submission_index: None,
        timeout: Some(ctx.timeout),
    }) {
        Ok(_) => {}
        Err(wgpu::PollError::Timeout) => return Err(hung(ctx)),
        Err(e) => return Err(GpuError::Readback(e.to_string())),
    }
    match rx.recv_timeout(ctx.timeout) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(GpuError::Readback(e.to_string())),
        Err(_) => return Err(hung(ctx)),
    }
    let bytes = slice
        .get_mapped_range()
        .map_err(|e| GpuError::Readback(e.to_string()))?
        .to_vec();
    buffer.unmap();
    Ok(bytes)
}

/// A wait past the deadline: the work is still queued, so the device is given up.
pub fn hung(ctx: &Context) -> GpuError {
    ctx.abandon("waiting for the GPU");
    GpuError::Timeout(ctx.timeout)
}

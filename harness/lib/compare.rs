//! Buffer and image comparisons with their tolerances.

use image::{Rgba, RgbaImage};
use serde::{Deserialize, Serialize};

/// How the golden comparison decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Count pixels whose largest channel difference exceeds a threshold.
    Channel,
    /// NVIDIA's FLIP perceptual difference: mean and a percentile of the error map.
    Flip,
}

impl Metric {
    /// As a case file writes it.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Channel => "channel",
            Metric::Flip => "flip",
        }
    }
}

/// The largest per-coordinate difference between two position lists, and where it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worst {
    /// Largest |a - b| over all coordinates; infinite when a value is NaN or the lengths differ.
    pub error: f64,
    pub vertex: usize,
}

/// Largest absolute difference between `a` and `b`, coordinate by coordinate.
pub fn max_abs_error(a: &[[f32; 3]], b: &[[f32; 3]]) -> Worst {
    if a.len() != b.len() {
        return Worst {
            error: f64::INFINITY,
            vertex: a.len().min(b.len()),
        };
    }
    let mut worst = Worst {
        error: 0.0,
        vertex: 0,
    };
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        for k in 0..3 {
            let d = (p[k] as f64 - q[k] as f64).abs();
            // NaN compares false: count it as the worst possible error.
            let d = if d.is_nan() { f64::INFINITY } else { d };
            if d > worst.error {
                worst = Worst {
                    error: d,
                    vertex: i,
                };
            }
        }
    }
    worst
}

/// Pixels that something was drawn on (alpha > 0; the target is cleared to transparent black).
pub fn coverage(img: &RgbaImage) -> u64 {
    img.pixels().filter(|p| p[3] > 0).count() as u64
}

/// Pixels that differ in any channel.
pub fn changed_pixels(a: &RgbaImage, b: &RgbaImage) -> u64 {
    a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count() as u64
}

/// How an image differs from its expected version.
pub struct ImageDiff {
    /// Pixels whose largest channel difference exceeds the threshold.
    pub differing: u64,
    /// Largest channel difference anywhere.
    pub max_channel: u8,
    /// Red where a pixel exceeds the threshold, the expected image dimmed elsewhere.
    pub image: RgbaImage,
}

/// Compares `actual` against `expected`, counting pixels whose channels differ by more than `threshold`.
/// Images of different sizes differ everywhere.
pub fn diff_images(expected: &RgbaImage, actual: &RgbaImage, threshold: u8) -> ImageDiff {
    if expected.dimensions() != actual.dimensions() {
        let (w, h) = actual.dimensions();
        return ImageDiff {
            differing: (w as u64 * h as u64).max(1),
            max_channel: 255,
            image: RgbaImage::from_pixel(w, h, Rgba([255, 0, 0, 255])),
        };
    }
    let mut differing = 0;
    let mut max_channel = 0u8;
    let mut image = RgbaImage::new(actual.width(), actual.height());
    for ((e, a), out) in expected
        .pixels()
        .zip(actual.pixels())
        .zip(image.pixels_mut())
    {
        let d = (0..4).map(|c| e[c].abs_diff(a[c])).max().unwrap_or(0);
        max_channel = max_channel.max(d);
        *out = if d > threshold {
            differing += 1;
            Rgba([255, 0, 0, 255])
        } else {
            Rgba([e[0] / 4, e[1] / 4, e[2] / 4, 255])
        };
    }
    ImageDiff {
        differing,
        max_channel,
        image,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_error_finds_the_worst_coordinate() {
        let a = [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]];
        let b = [[0.0, 0.0, 0.0], [1.0, 2.5, 3.0]];
        assert_eq!(
            max_abs_error(&a, &b),
            Worst {
                error: 0.5,
                vertex: 1
            }
        );
    }

    #[test]
    fn nan_and_length_mismatch_are_infinite() {
        assert!(max_abs_error(&[[f32::NAN, 0.0, 0.0]], &[[0.0; 3]])
            .error
            .is_infinite());
        assert!(max_abs_error(&[[0.0; 3]], &[]).error.is_infinite());
    }

    #[test]
    fn coverage_and_changes_count_pixels() {
        let mut a = RgbaImage::new(4, 4);
        a.put_pixel(1, 1, Rgba([10, 20, 30, 255]));
        let mut b = a.clone();
        b.put_pixel(2, 2, Rgba([1, 0, 0, 255]));
        assert_eq!(coverage(&a), 1);
        assert_eq!(coverage(&b), 2);
        assert_eq!(changed_pixels(&a, &b), 1);
    }

    #[test]
    fn diff_respects_threshold() {
        let a = RgbaImage::from_pixel(2, 2, Rgba([100, 100, 100, 255]));
        let mut b = a.clone();
        b.put_pixel(0, 0, Rgba([101, 100, 100, 255]));
        b.put_pixel(1, 1, Rgba([110, 100, 100, 255]));
        let d = diff_images(&a, &b, 1);
        assert_eq!((d.differing, d.max_channel), (1, 10));
        assert_eq!(d.image.get_pixel(1, 1), &Rgba([255, 0, 0, 255]));
        assert_eq!(diff_images(&a, &RgbaImage::new(3, 2), 0).differing, 6);
    }
}

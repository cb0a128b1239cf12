//! Unit tests of the fast path: every kernel against the oracle, threads, bounds, the palette build.

use super::*;
use crate::reference;
use crate::rig::{strip, Pose, Skeleton, Transform};
use glam::{DQuat, DVec3, Quat, Vec3, Vec4};

/// xorshift64*: tiny and deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn quat(&mut self) -> Quat {
        let q = Vec4::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        );
        Quat::from_vec4(q.normalize_or(Vec4::W))
    }
    fn vec3(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }
}

/// A pose-like palette: rotations, mild non-uniform scale, translations within the mesh extent.
fn random_palette(rng: &mut Rng, joints: usize, extent: f32) -> Vec<Mat4> {
    (0..joints)
        .map(|_| {
            let s = Vec3::new(
                rng.range(0.8, 1.2),
                rng.range(0.8, 1.2),
                rng.range(0.8, 1.2),
            );
            Mat4::from_scale_rotation_translation(s, rng.quat(), rng.vec3(0.5 * extent))
        })
        .collect()
}

/// `n` vertices in [-extent, extent]^3 with exactly `influences` nonzero weights in random slots.
fn random_mesh(rng: &mut Rng, n: usize, joints: usize, influences: usize, extent: f32) -> Mesh {
    let mut mesh = Mesh::default();
    for _ in 0..n {
        mesh.positions.push(rng.vec3(extent).into());
        let j = [0; 4].map(|_| rng.below(joints) as u32);
        let mut w = [0f32; 4];
        let mut slots = [0usize, 1, 2, 3];
        for i in 0..4 {
            slots.swap(i, i + rng.below(4 - i));
        }
        for &s in &slots[..influences] {
            w[s] = rng.range(0.05, 1.0);
        }
        let total: f32 = w.iter().sum();
        mesh.joints.push(j);
        mesh.weights.push(w.map(|x| x / total));
    }
    mesh
}

/// The largest difference of two outputs, infinite where one is NaN and the other is not (a
/// vertex a kernel left unwritten in a NaN-filled output); NaN against NaN agrees.
fn max_abs_diff(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(a, b)| (0..3).map(move |i| (a[i], b[i])))
        .map(|(a, b)| match (a.is_nan(), b.is_nan()) {
            (true, true) => 0.0,
            (false, false) => (a - b).abs(),
            _ => f32::INFINITY,
        })
        .fold(0.0, f32::max)
}

const COUNTS: [usize; 7] = [0, 1, 5, 63, 64, 65, 1001];

#[test]
fn every_supported_kernel_matches_the_oracle() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut worst = 0f32;
    for isa in Isa::supported() {
        for &n in &COUNTS {
            for influences in 1..=4 {
                for extent in [1.0f32, 10.0, 300.0] {
                    let joints = 1 + rng.below(40);
                    let palette = random_palette(&mut rng, joints, extent);
                    let mesh = random_mesh(&mut rng, n, joints, influences, extent);
                    let want = reference::skin(&palette, &mesh);
                    let aligned = AlignedPalette::from(palette.as_slice());
                    for threads in [1, 2, 3] {
                        let mut out = vec![[f32::NAN; 3]; n];
                        skin_with(
                            isa,
                            &aligned,
                            &mesh.positions,
                            &mesh.joints,
                            &mesh.weights,
                            &mut out,
                            threads,
                        );
                        let tol = 1e-6 * mesh.extent();
                        let d = max_abs_diff(&out, &want);
                        worst = worst.max(d / tol);
                        assert!(
                            d <= tol,
                            "{} n={n} k={influences} extent={extent} threads={threads}: {d} > {tol}",
                            isa.name()
                        );
                    }
                }
            }
        }
    }
    eprintln!("worst error / tolerance: {worst:.3}");
}

#[test]
fn strip_meshes_match_the_oracle_on_every_kernel() {
    let s = Skeleton::chain(12, 0.5);
    let mut pose = s.bind_pose();
    for (j, l) in pose.locals.iter_mut().enumerate() {
        l.rotation = DQuat::from_rotation_z(0.2 + 0.01 * j as f64);
    }
    let palette = s.palette(&pose);
    let aligned = AlignedPalette::from(palette.as_slice());
    for isa in Isa::supported() {
        for influences in 1..=4 {
            let mesh = strip(12, 0.5, 1001, 0.3, influences);
            let want = reference::skin(&palette, &mesh);
            let mut out = vec![[0.0; 3]; mesh.len()];
            skin_with(
                isa,
                &aligned,
                &mesh.positions,
                &mesh.joints,
                &mesh.weights,
                &mut out,
                2,
            );
            assert!(
                max_abs_diff(&out, &want) <= 1e-6 * mesh.extent(),
                "{}",
                isa.name()
            );
        }
    }
}

#[test]
fn one_influence_matches_glam_on_every_kernel() {
    let mut rng = Rng(7);
    for isa in Isa::supported() {
        for &n in &COUNTS {
            let joints = 1 + rng.below(30);
            let palette = random_palette(&mut rng, joints, 20.0);
            let mut mesh = random_mesh(&mut rng, n, joints, 4, 20.0);
            // Garbage in the unread slots must not matter.
            for j in &mut mesh.joints {
                j[1] = u32::MAX;
            }
            let want: Vec<[f32; 3]> = mesh
                .positions
                .iter()
                .zip(&mesh.joints)
                .map(|(p, j)| {
                    palette[j[0] as usize]
                        .transform_point3(Vec3::from(*p))
                        .into()
                })
                .collect();
            let aligned = AlignedPalette::from(palette.as_slice());
            for threads in [1, 2, 3] {
                let mut out = vec![[f32::NAN; 3]; n];
                skin1_with(
                    isa,
                    &aligned,
                    &mesh.positions,
                    &mesh.joints,
                    &mut out,
                    threads,
                );
                let d = max_abs_diff(&out, &want);
                assert!(
                    d <= 1e-6 * mesh.extent(),
                    "{} n={n} threads={threads}: {d}",
                    isa.name()
                );
            }
        }
    }
}

#[test]
fn static_transform_matches_glam_on_every_kernel() {
    let mut rng = Rng(11);
    for isa in Isa::supported() {
        for &n in &[0usize, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 1001] {
            let m = random_palette(&mut rng, 1, 50.0)[0];
            let mesh = random_mesh(&mut rng, n, 1, 1, 50.0);
            let want = reference::transform(&m, &mesh.positions);
            for threads in [1, 2, 3] {
                let mut out = vec![[f32::NAN; 3]; n];
                transform_with(isa, &m, &mesh.positions, &mut out, threads);
                let d = max_abs_diff(&out, &want);
                assert!(
                    d <= 1e-6 * mesh.extent(),
                    "{} n={n} threads={threads}: {d}",
                    isa.name()
                );
            }
        }
    }
}

/// Runs `f` on `buf[off..off + n]` for every start phase within a cache line, and checks that
/// nothing outside the slice changed and every output is `want`.
fn check_slice_bounds(name: &str, want: impl Fn(usize) -> [f32; 3], f: impl Fn(&mut [[f32; 3]])) {
    for n in [
        0usize, 1, 2, 3, 4, 5, 15, 16, 17, 18, 31, 32, 33, 47, 48, 49, 70,
    ] {
        for off in 0..16 {
            let mut buf = vec![[-7.0f32; 3]; n + 32];
            f(&mut buf[off..off + n]);
            for (i, o) in buf.iter().enumerate() {
                if i < off || i >= off + n {
                    assert_eq!(
                        *o, [-7.0; 3],
                        "{name} n={n} off={off}: wrote outside at {i}"
                    );
                } else {
                    assert_eq!(
                        *o,
                        want(i - off),
                        "{name} n={n} off={off}: vertex {}",
                        i - off
                    );
                }
            }
        }
    }
}

#[test]
fn kernels_write_exactly_their_slice_at_every_alignment() {
    let palette = AlignedPalette::from(&[Mat4::from_translation(Vec3::X), Mat4::IDENTITY][..]);
    let m = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
    let pos: Vec<[f32; 3]> = (0..70).map(|i| [i as f32, 2.0, 3.0]).collect();
    let jnt = vec![[0u32, 1, 0, 1]; 70];
    let wts = vec![[0.25f32; 4]; 70];
    for isa in Isa::supported() {
        check_slice_bounds(
            isa.name(),
            |i| [i as f32 + 0.5, 2.0, 3.0],
            |out| {
                let n = out.len();
                skin_with(isa, &palette, &pos[..n], &jnt[..n], &wts[..n], out, 1)
            },
        );
        check_slice_bounds(
            isa.name(),
            |i| [i as f32 + 1.0, 2.0, 3.0],
            |out| {
                let n = out.len();
                skin1_with(isa, &palette, &pos[..n], &jnt[..n], out, 1)
            },
        );
        check_slice_bounds(
            isa.name(),
            |i| [i as f32 + 1.0, 4.0, 6.0],
            |out| {
                let n = out.len();
                transform_with(isa, &m, &pos[..n], out, 1)
            },
        );
    }
}

#[test]
fn streaming_sizes_match_the_oracle_on_every_kernel() {
    // Above STREAM_BYTES of output the AVX-512 kernels and the static transform switch to
    // non-temporal stores, and the AVX2 kernels prefetch their inputs.
    let n = STREAM_BYTES / 12 + 101;
    let mut rng = Rng(5);
    let palette = random_palette(&mut rng, 9, 4.0);
    let mesh = random_mesh(&mut rng, n, 9, 4, 4.0);
    let aligned = AlignedPalette::from(palette.as_slice());
    let want = reference::skin(&palette, &mesh);
    let want1: Vec<[f32; 3]> = mesh
        .positions
        .iter()
        .zip(&mesh.joints)
        .map(|(p, j)| {
            palette[j[0] as usize]
                .transform_point3(Vec3::from(*p))
                .into()
        })
        .collect();
    let want_static = reference::transform(&palette[3], &mesh.positions);
    let tol = 1e-6 * mesh.extent();
    for isa in Isa::supported() {
        for threads in [1, 2] {
            let mut out = vec![[f32::NAN; 3]; n];
            skin_with(
                isa,
                &aligned,
                &mesh.positions,
                &mesh.joints,
                &mesh.weights,
                &mut out,
                threads,
            );
            assert!(max_abs_diff(&out, &want) <= tol, "{}", isa.name());
            skin1_with(
                isa,
                &aligned,
                &mesh.positions,
                &mesh.joints,
                &mut out,
                threads,
            );
            assert!(max_abs_diff(&out, &want1) <= tol, "{}", isa.name());
            transform_with(isa, &palette[3], &mesh.positions, &mut out, threads);
            assert!(max_abs_diff(&out, &want_static) <= tol, "{}", isa.name());
        }
    }
}

/// `n` positions and `n` outputs in one buffer, the outputs starting `past` bytes (a multiple of 4)
/// beyond the positions modulo 4 KiB.
#[cfg(target_arch = "x86_64")]
fn placed(n: usize, past: usize) -> (Vec<f32>, usize, usize) {
    // Up to 1023 floats to the first page boundary, 1023 rounding 3 n up, 1023 for `past`.
    let buf = vec![f32::NAN; 6 * n + 3 * 1024];
    let pos = (4096 - buf.as_ptr() as usize % 4096) % 4096 / 4;
    let out = pos + (3 * n).div_ceil(1024) * 1024 + past / 4;
    (buf, pos, out)
}

#[cfg(target_arch = "x86_64")]
#[test]
fn loads_meet_stores_only_with_the_outputs_just_past_the_positions_modulo_4k() {
    let n = 100;
    for (past, meet) in [
        (0, false),
        (4, true),
        (176, true),
        (avx2::ALIAS_WINDOW, true),
        (avx2::ALIAS_WINDOW + 4, false),
        (2048, false),
        (4092, false),
    ] {
        let (buf, p, o) = placed(n, past);
        let to_vertices = |at: usize| -> &[[f32; 3]] { bytemuck::cast_slice(&buf[at..at + 3 * n]) };
        assert_eq!(
            avx2::loads_meet_stores(to_vertices(p), to_vertices(o)),
            meet,
            "{past} bytes past"
        );
    }
}

/// The static transform of `isa` (a SIMD form this CPU runs) called directly: streaming or not,
/// its positions ahead read as `hint` says.
#[cfg(target_arch = "x86_64")]
fn transform_kernel(
    isa: Isa,
    m: &Mat4,
    pos: &[[f32; 3]],
    out: &mut [[f32; 3]],
    stream: bool,
    hint: Ahead,
) {
    check_isa(isa);
    // SAFETY: check_isa asserted that this CPU runs `isa`; the callers pass equal lengths.
    unsafe {
        match isa {
            Isa::Avx512F => avx512::transform_avx512(m, pos, out, stream, hint),
            Isa::Avx2Fma => avx2::transform_avx2::<true>(m, pos, out, stream, hint),
            Isa::Avx2Rows => avx2::transform_avx2::<false>(m, pos, out, stream, hint),
            Isa::Portable => unreachable!("the portable transform has no hint"),
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_static_transform_runs_backward_where_its_loads_would_meet_its_stores() {
    if !Isa::supported().contains(&Isa::Avx2Fma) {
        return;
    }
    // Streaming sizes (the AVX2 steps run backward only there), and a plain-store size (the
    // AVX-512 steps run backward at every size).
    let mut rng = Rng(11);
    let m = random_palette(&mut rng, 1, 4.0)[0];
    let sizes = [STREAM_BYTES / 12 + 37, 1000 + 7];
    for (n, past) in sizes
        .into_iter()
        .flat_map(|n| [4, 96, avx2::ALIAS_WINDOW, avx2::ALIAS_WINDOW + 4].map(|past| (n, past)))
    {
        let (mut buf, p, o) = placed(n, past);
        for f in &mut buf[p..p + 3 * n] {
            *f = rng.range(-4.0, 4.0);
        }
        let (head, tail) = buf.split_at_mut(o);
        let pos: &[[f32; 3]] = bytemuck::cast_slice(&head[p..p + 3 * n]);
        let out: &mut [[f32; 3]] = bytemuck::cast_slice_mut(&mut tail[..3 * n]);
        assert_eq!(
            avx2::loads_meet_stores(pos, out),
            past <= avx2::ALIAS_WINDOW
        );
        let want = reference::transform(&m, pos);
        // Every width of steps: 16 vertices in 512-bit registers, 8 in 256-bit ones, 4 in
        // 128-bit ones; and every way of reading ahead (backward, the lines before).
        for isa in Isa::SIMD.into_iter().filter(|i| i.is_supported()) {
            out.fill([f32::NAN; 3]);
            transform_with(isa, &m, pos, out, 1);
            let what = format!("{} {n} vertices, {past} bytes past", isa.name());
            assert!(max_abs_diff(out, &want) <= 1e-5, "{what}");
            for hint in Ahead::ALL {
                out.fill([f32::NAN; 3]);
                transform_kernel(isa, &m, pos, out, beyond_caches(n), hint);
                assert!(max_abs_diff(out, &want) <= 1e-5, "{what}, {hint:?}");
            }
        }
    }
}

#[test]
fn zero_weights_ignore_bad_joints_and_non_finite_matrices_like_the_oracle() {
    let palette = vec![
        Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0)),
        Mat4::from_cols_array(&[f32::NAN; 16]),
    ];
    let n = 37;
    let mesh = Mesh {
        positions: (0..n).map(|i| [i as f32, 2.0, 3.0]).collect(),
        // Index 1 is NaN, index 9 is outside the palette: both with zero weight.
        joints: (0..n)
            .map(|i| [0, 1, if i % 5 == 0 { 9 } else { 0 }, 1])
            .collect(),
        weights: vec![[1.0, 0.0, 0.0, 0.0]; n],
        ..Default::default()
    };
    let want = reference::skin(&palette, &mesh);
    let aligned = AlignedPalette::from(palette.as_slice());
    assert!(!aligned.is_finite());
    let finite = AlignedPalette::from(&palette[..1]);
    for isa in Isa::supported() {
        for pal in [&aligned, &finite] {
            let mut out = vec![[0.0; 3]; n];
            skin_with(
                isa,
                pal,
                &mesh.positions,
                &mesh.joints,
                &mesh.weights,
                &mut out,
                2,
            );
            assert_eq!(out, want, "{}", isa.name());
        }
    }
}

#[test]
fn a_weighted_joint_outside_the_palette_panics_on_every_kernel() {
    let palette = AlignedPalette::identity(2);
    for isa in Isa::supported() {
        for n in [1usize, 4, 9, 40, 100] {
            for bad in [0, n / 2, n - 1] {
                let pos = vec![[0.0f32; 3]; n];
                let wts = vec![[0.5f32, 0.5, 0.0, 0.0]; n];
                let mut jnt = vec![[0u32, 1, 0, 0]; n];
                jnt[bad][1] = 2;
                let r = std::panic::catch_unwind(|| {
                    let mut out = vec![[0.0; 3]; n];
                    skin_with(isa, &palette, &pos, &jnt, &wts, &mut out, 1);
                });
                assert!(r.is_err(), "{} n={n} bad={bad}", isa.name());
                let mut jnt = vec![[0u32, 1, 0, 0]; n];
                jnt[bad][0] = 5;
                let r = std::panic::catch_unwind(|| {
                    let mut out = vec![[0.0; 3]; n];
                    skin1_with(isa, &palette, &pos, &jnt, &mut out, 1);
                });
                assert!(r.is_err(), "{} n={n} bad={bad}", isa.name());
            }
        }
    }
}

#[test]
fn threaded_calls_match_the_oracle_on_every_kernel() {
    // Large enough for 3 threads of MIN_VERTICES_PER_THREAD, and not a multiple of 16.
    let n = 3 * MIN_VERTICES_PER_THREAD + 13;
    let mut rng = Rng(17);
    let palette = random_palette(&mut rng, 20, 8.0);
    let mesh = random_mesh(&mut rng, n, 20, 4, 8.0);
    let aligned = AlignedPalette::from(palette.as_slice());
    let want = reference::skin(&palette, &mesh);
    let want_static = reference::transform(&palette[0], &mesh.positions);
    let want1: Vec<[f32; 3]> = mesh
        .positions
        .iter()
        .zip(&mesh.joints)
        .map(|(p, j)| {
            palette[j[0] as usize]
                .transform_point3(Vec3::from(*p))
                .into()
        })
        .collect();
    let tol = 1e-6 * mesh.extent();
    for isa in Isa::supported() {
        for threads in [2, 3, 7] {
            let mut out = vec![[f32::NAN; 3]; n];
            skin_with(
                isa,
                &aligned,
                &mesh.positions,
                &mesh.joints,
                &mesh.weights,
                &mut out,
                threads,
            );
            assert!(
                max_abs_diff(&out, &want) <= tol,
                "{} threads={threads}",
                isa.name()
            );
            skin1_with(
                isa,
                &aligned,
                &mesh.positions,
                &mesh.joints,
                &mut out,
                threads,
            );
            assert!(
                max_abs_diff(&out, &want1) <= tol,
                "{} threads={threads}",
                isa.name()
            );
            transform_with(isa, &palette[0], &mesh.positions, &mut out, threads);
            assert!(
                max_abs_diff(&out, &want_static) <= tol,
                "{} threads={threads}",
                isa.name()
            );
        }
    }
}

#[test]
fn the_best_kernel_is_supported() {
    assert!(Isa::best().is_supported() && Isa::best_static().is_supported());
    assert!(Isa::supported().contains(&Isa::Portable));
    // A SIMD form wherever one runs (which one is the trials' to say).
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        assert!(Isa::SIMD.contains(&Isa::best()) && Isa::SIMD.contains(&Isa::best_static()));
    }
}

#[test]
fn aligned_palette_is_aligned_and_tracks_finiteness() {
    assert_eq!(std::mem::size_of::<AlignedMat4>(), 64);
    assert_eq!(std::mem::align_of::<AlignedMat4>(), 64);
    let m = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
    let mut p = AlignedPalette::from(&[m, Mat4::IDENTITY][..]);
    assert_eq!(p.as_slice().as_ptr() as usize % 64, 0);
    assert_eq!(p.bytes(), 128);
    assert_eq!(p.get(0), Some(m));
    assert_eq!(p.to_mat4s(), vec![m, Mat4::IDENTITY]);
    p.set(1, &Mat4::from_cols_array(&[f32::INFINITY; 16]));
    assert!(!p.is_finite());
    p.set(1, &Mat4::IDENTITY);
    assert!(p.is_finite());
}

/// The AVX2 kernels read the column form: it must follow every write of the row form.
fn assert_cols_follow_rows(p: &AlignedPalette, what: &str) {
    assert_eq!(p.cols().len(), p.len(), "{what}");
    assert_eq!(p.cols().as_ptr() as usize % 64, 0, "{what}");
    for (j, (c, r)) in p.cols().iter().zip(p.as_slice()).enumerate() {
        assert_eq!(c.0, r.to_mat4().to_cols_array(), "{what}: joint {j}");
    }
}

#[test]
fn the_column_form_follows_every_write_of_the_palette() {
    let mut rng = Rng(7);
    let mats = random_palette(&mut rng, 5, 3.0);
    let mut p = AlignedPalette::from(&mats[..]);
    assert_cols_follow_rows(&p, "from");
    p.set(2, &mats[4]);
    assert_cols_follow_rows(&p, "set");
    p.copy_from(&mats[..3]);
    assert_cols_follow_rows(&p, "copy_from, shorter");
    assert_cols_follow_rows(&AlignedPalette::identity(4), "identity");
    let s = Skeleton::chain(6, 0.5);
    let mut pose = s.bind_pose();
    pose.locals[2].rotation = DQuat::from_rotation_z(0.4);
    let mut b = PaletteBuilder::new(&s);
    let mut out = AlignedPalette::default();
    for isa in Isa::supported() {
        b.build_with(isa, &locals_f32(&pose), &mut out);
        assert_cols_follow_rows(&out, isa.name());
    }
}

fn max_rel_diff(a: &AlignedPalette, b: &[Mat4]) -> f32 {
    let scale = b
        .iter()
        .flat_map(|m| m.to_cols_array())
        .fold(1.0f32, |s, v| s.max(v.abs()));
    a.to_mat4s()
        .iter()
        .zip(b)
        .flat_map(|(x, y)| {
            let (x, y) = (x.to_cols_array(), y.to_cols_array());
            (0..16).map(move |i| (x[i] - y[i]).abs())
        })
        .fold(0.0, f32::max)
        / scale
}

#[test]
fn fast_palette_matches_the_f64_palette_on_bent_chains() {
    for joints in [1usize, 16, 64, 256, 1024] {
        let s = Skeleton::chain(joints, 0.25);
        let mut pose = s.bind_pose();
        for (j, l) in pose.locals.iter_mut().enumerate() {
            l.rotation = DQuat::from_axis_angle(
                DVec3::new(0.3, 0.2, 1.0).normalize(),
                0.05 + 0.001 * j as f64,
            );
        }
        let mut b = PaletteBuilder::new(&s);
        let mut out = b.palette();
        for isa in Isa::supported() {
            for p in [s.bind_pose(), pose.clone()] {
                b.build_with(isa, &locals_f32(&p), &mut out);
                let d = max_rel_diff(&out, &s.palette(&p));
                assert!(d <= 1e-5, "{} {joints} joints: {d}", isa.name());
                assert!(out.is_finite());
            }
        }
    }
}

#[test]
fn fast_palette_matches_the_f64_palette_on_random_trees() {
    let mut rng = Rng(99);
    for joints in [2usize, 17, 100, 300] {
        let parents: Vec<Option<usize>> = (0..joints)
            .map(|j| {
                if j == 0 || rng.below(10) == 0 {
                    None
                } else {
                    Some(j - 1 - rng.below(j.min(4)))
                }
            })
            .collect();
        let trs = |rng: &mut Rng| Transform {
            translation: rng.vec3(2.0).as_dvec3(),
            rotation: rng.quat().as_dquat().normalize(),
            scale: DVec3::new(
                rng.range(0.7, 1.3) as f64,
                rng.range(0.7, 1.3) as f64,
                rng.range(0.7, 1.3) as f64,
            ),
        };
        let bind: Vec<Transform> = (0..joints).map(|_| trs(&mut rng)).collect();
        // Every third node is not a joint; the joints come in a shuffled order.
        let mut nodes: Vec<usize> = (0..joints).filter(|n| n % 3 != 1 || joints < 3).collect();
        for i in 0..nodes.len() {
            let k = i + rng.below(nodes.len() - i);
            nodes.swap(i, k);
        }
        let mut s = Skeleton {
            parents,
            bind,
            joints: nodes,
            inverse_bind: Vec::new(),
        };
        let g = s.globals(&s.bind_pose());
        s.inverse_bind = s.joints.iter().map(|&n| g[n].inverse()).collect();
        let pose = Pose {
            locals: (0..joints).map(|_| trs(&mut rng)).collect(),
        };
        let mut b = PaletteBuilder::new(&s);
        let want = s.palette(&pose);
        for isa in Isa::supported() {
            let mut out = AlignedPalette::default();
            b.build_with(isa, &locals_f32(&pose), &mut out);
            let d = max_rel_diff(&out, &want);
            assert!(d <= 1e-5, "{} {joints} joints: {d}", isa.name());
            assert_eq!(out.len(), want.len());
        }
    }
}

#[test]
fn palette_builder_rejects_a_child_before_its_parent() {
    let mut s = Skeleton::chain(3, 1.0);
    s.parents[1] = Some(2);
    assert!(std::panic::catch_unwind(|| PaletteBuilder::new(&s)).is_err());
}

#[test]
fn palette_builder_flags_non_finite_output() {
    let s = Skeleton::chain(2, 1.0);
    let mut b = PaletteBuilder::new(&s);
    let mut out = b.palette();
    let mut locals = locals_f32(&s.bind_pose());
    locals[1].translation.x = f32::INFINITY;
    for isa in Isa::supported() {
        b.build_with(isa, &locals, &mut out);
        assert!(!out.is_finite(), "{}", isa.name());
        b.build_with(isa, &locals_f32(&s.bind_pose()), &mut out);
        assert!(out.is_finite(), "{}", isa.name());
    }
}

/// The xor of every 32-bit word of the slices: the streaming bound loop xors each input word into
/// exactly one output word (which one depends on the kernel's block), so its output's xor is its inputs'.
fn xor_all(pos: &[[f32; 3]], wide: &[&[[u32; 4]]]) -> u32 {
    let p = pos.iter().flatten().fold(0, |a, f| a ^ f.to_bits());
    wide.iter()
        .flat_map(|w| w.iter().flatten())
        .fold(p, |a, x| a ^ x)
}

#[test]
fn the_memory_bound_loop_moves_every_byte_of_its_slices_on_every_kernel() {
    let mut rng = Rng(11);
    // Small sizes at every offset (head and tail paths), and one past STREAM_BYTES (streaming
    // stores). The inputs are random, so a word left out or written twice shows in the xor.
    let big = STREAM_BYTES / 12 + 37;
    let len = big + 16;
    let pos: Vec<[f32; 3]> = (0..len).map(|_| rng.vec3(5.0).into()).collect();
    let jnt: Vec<[u32; 4]> = (0..len)
        .map(|_| [0, 1, 2, 3].map(|_| rng.next() as u32))
        .collect();
    let wts: Vec<[u32; 4]> = (0..len)
        .map(|_| [0, 1, 2, 3].map(|_| rng.next() as u32))
        .collect();
    let mut cases: Vec<(usize, usize)> = (0..16).flat_map(|s| [(s, 3), (s, 40)]).collect();
    cases.push((3, big));
    for isa in Isa::supported() {
        for &(start, n) in &cases {
            for wide_n in 0..=2 {
                let all = [&jnt[start..start + n], &wts[start..start + n]];
                let wide = &all[..wide_n];
                let p = &pos[start..start + n];
                let want = xor_all(p, wide);
                for threads in [1, 2] {
                    // One guard vertex either side: the loop writes exactly its slice.
                    let mut buf = vec![[f32::NAN; 3]; n + 2];
                    stream_with(isa, p, wide, &mut buf[1..n + 1], threads);
                    let what = format!(
                        "{} start {start} n {n} wide {wide_n} threads {threads}",
                        isa.name()
                    );
                    assert_eq!(xor_all(&buf[1..n + 1], &[]), want, "{what}");
                    assert!(
                        buf[0][0].is_nan() && buf[n + 1][0].is_nan(),
                        "{what}: wrote outside"
                    );
                }
            }
        }
    }
    assert_eq!(traffic(2), (44, 12));
    assert_eq!(traffic(0), (12, 12));
}

/// What the column form's moves loop stores for vertex v: its x, y, z xor its weights' xor and,
/// for each influence k with columns `c`, `c[i] ^ c[4 + i] ^ c[8 + i] ^ c[12 + i]`.
fn moves_by_columns(palette: &AlignedPalette, mesh: &Mesh, v: usize) -> [u32; 3] {
    let w = mesh.weights[v].iter().fold(0, |a, w| a ^ w.to_bits());
    std::array::from_fn(|i| {
        let cols = mesh.joints[v].iter().fold(0, |a, &j| {
            let c = palette.cols()[j as usize].0.map(f32::to_bits);
            a ^ c[i] ^ c[4 + i] ^ c[8 + i] ^ c[12 + i]
        });
        mesh.positions[v][i].to_bits() ^ w ^ cols
    })
}

/// What the row form's moves loop stores for float f of the 4 vertices from q (a group of its
/// loop): the xor of the 4 registers that would be summed into f, each of vertex v and row r being
/// (x, y, z, 1) xor the weights' xor in lane 0 xor row r of v's 4 matrices; f's lane is f % 4.
fn moves_by_rows(palette: &AlignedPalette, mesh: &Mesh, q: usize, f: usize) -> u32 {
    let lane = f % 4;
    (4 * (f / 4)..4 * (f / 4) + 4)
        .map(|g| {
            let (v, r) = (q + g / 3, g % 3);
            let p = mesh.positions[v];
            let p1 = [p[0], p[1], p[2], 1.0][lane].to_bits();
            let w = if lane == 0 {
                mesh.weights[v].iter().fold(0, |a, w| a ^ w.to_bits())
            } else {
                0
            };
            let rows = mesh.joints[v].iter().fold(0, |a, &j| {
                a ^ palette.as_slice()[j as usize].0[4 * r + lane].to_bits()
            });
            p1 ^ w ^ rows
        })
        .fold(0, |a, x| a ^ x)
}

#[test]
fn the_moves_loops_load_every_input_their_avx2_kernels_load() {
    if !Isa::supported().contains(&Isa::Avx2Fma) {
        return;
    }
    let mut rng = Rng(12);
    let mats = random_palette(&mut rng, 9, 2.0);
    let palette = AlignedPalette::from(mats.as_slice());
    for isa in [Isa::Avx2Fma, Isa::Avx2Rows] {
        // Past STREAM_BYTES too, where the loop prefetches.
        for n in [3, 9, 40, 1001, STREAM_BYTES / 12 + 37] {
            let mesh = random_mesh(&mut rng, n, 9, 4, 2.0);
            let mut out = vec![[0f32; 3]; n];
            let (p, j, w) = (&mesh.positions, &mesh.joints, &mesh.weights);
            skin4_moves(isa, &palette, p, j, w, &mut out);
            let skinned = reference::skin(&mats, &mesh);
            let mut moved = 0;
            for (v, got) in out.iter().enumerate() {
                let want: [u32; 3] = if isa == Isa::Avx2Rows {
                    let q = v / 4 * 4;
                    std::array::from_fn(|i| {
                        let f = 3 * (v - q) + i;
                        if q + 4 <= n {
                            moves_by_rows(&palette, &mesh, q, f)
                        } else {
                            0
                        }
                    })
                } else {
                    moves_by_columns(&palette, &mesh, v)
                };
                if got.map(f32::to_bits) == want {
                    moved += 1;
                } else {
                    // Only the scalar head and tail skin; any other vertex lost one of its loads.
                    let err = (0..3).map(|i| (got[i] as f64 - skinned[v][i] as f64).abs());
                    let what = format!("{} n {n} vertex {v}: {got:?}", isa.name());
                    assert!(err.fold(0.0, f64::max) < 1e-4, "{what}");
                }
            }
            assert!(
                moved + 2 * 8 + 8 >= n,
                "{} n {n}: {moved} vertices by the block loop",
                isa.name()
            );
        }
    }
}

#[test]
fn the_trial_chooses_the_family_that_ran_fastest() {
    // The portable family's call is made slower by a wait: the trial must see it.
    let slow = std::time::Duration::from_micros(200);
    let families = [Isa::Portable, Isa::Avx2Fma];
    let t = trial::run(&families, |isa, _, out| {
        if isa == Isa::Portable {
            std::thread::sleep(slow);
        }
        out[0] = [1.0; 3];
    });
    assert_eq!(t.chosen, Isa::Avx2Fma, "{t:?}");
    assert_eq!(t.timed.len(), 2);
    let per_vertex = slow.as_secs_f64() * 1e9 / TrialMesh::VERTICES as f64;
    assert!(
        t.timed[0].1 >= per_vertex && t.timed[1].1 < per_vertex,
        "{t:?}"
    );
    // The trial's mesh is one the kernels skin as the oracle does.
    let m = TrialMesh::new();
    let mesh = Mesh {
        positions: m.positions.clone(),
        joints: m.joints.clone(),
        weights: m.weights.clone(),
        ..Default::default()
    };
    let want = reference::skin(&m.palette.to_mat4s(), &mesh);
    for isa in Isa::supported() {
        let mut out = vec![[f32::NAN; 3]; TrialMesh::VERTICES];
        skin_with(
            isa,
            &m.palette,
            &m.positions,
            &m.joints,
            &m.weights,
            &mut out,
            1,
        );
        assert!(max_abs_diff(&out, &want) < 1e-5, "{}", isa.name());
    }
    if let Some(t) = static_trial() {
        assert_eq!(Isa::best_static(), t.chosen);
        assert!(
            t.timed.iter().all(|(_, ns)| *ns > 0.0 && ns.is_finite()),
            "{t:?}"
        );
    }
    if let Some(t) = kernel_trial() {
        assert_eq!(Isa::best(), t.chosen);
        let timed: Vec<Isa> = t.timed.iter().map(|(isa, _)| *isa).collect();
        let runs: Vec<Isa> = Isa::SIMD.into_iter().filter(|i| i.is_supported()).collect();
        assert_eq!(timed, runs);
        assert!(
            t.timed.iter().all(|(_, ns)| *ns > 0.0 && ns.is_finite()),
            "{t:?}"
        );
    }
}

#[test]
fn the_fma_peak_runs_its_flops_at_a_plausible_rate() {
    for isa in Isa::supported() {
        let Some(flops) = peak_flops(isa) else {
            assert!(
                matches!(isa, Isa::Portable | Isa::Avx2Rows),
                "{}",
                isa.name()
            );
            assert_ne!(isa.bound_family(), Isa::Avx2Rows);
            continue;
        };
        let fastest = |f: &dyn Fn()| {
            (0..20)
                .map(|_| {
                    let t = std::time::Instant::now();
                    f();
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min)
        };
        let secs = fastest(&|| fma_peak(isa));
        let chain = fastest(&|| crate::bench::clock::add_chain(crate::bench::clock::CHAIN_ADDS));
        let ghz = crate::bench::clock::ghz(chain).unwrap_or(3.0);
        let lanes = if isa == Isa::Avx512F { 16.0 } else { 8.0 };
        // FMA instructions per cycle: between 0.5 and 4 on any core (1 or 2 units, some with 4).
        let per_cycle = flops / secs / (ghz * 1e9) / (2.0 * lanes);
        assert!(
            (0.5..=4.0).contains(&per_cycle),
            "{}: {per_cycle} FMAs per cycle",
            isa.name()
        );
        assert!(flops_per_vertex(Kernel::Skin4, isa).is_some());
    }
    assert_eq!(flops_per_vertex(Kernel::Skin4, Isa::Avx2Fma), Some(140));
    assert_eq!(flops_per_vertex(Kernel::Static, Isa::Avx512F), Some(18));
}

/// A call of each reach for the trials' tests: (reach, vertices), the smaller calls' reach none.
const REACHES: [(Reach, usize); 2] = [(Reach::Shared, 100_000), (Reach::Memory, 800_000)];

/// Prefetching changes when the SIMD kernels' inputs arrive, never what they compute: both
/// variants write the same bits; the trial at each reach times both and takes the faster, and
/// `skin_with` follows it there (and not below the shared cache's reach).
#[test]
fn the_prefetch_trials_time_both_variants_which_compute_alike() {
    assert_eq!(Reach::of(TrialMesh::VERTICES), None);
    let bits = |v: &[[f32; 3]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
    for (reach, n) in REACHES {
        assert_eq!(Reach::of(n), Some(reach));
        let m = TrialMesh::of(n);
        let inputs = (&m.positions[..], &m.joints[..], &m.weights[..]);
        for isa in Isa::SIMD {
            if !isa.is_supported() {
                continue;
            }
            // One buffer for both: the AVX-512 kernels' scalar head depends on its alignment.
            let mut out = vec![[f32::NAN; 3]; n];
            skin_run(isa, &m.palette, inputs, &mut out, 2, true);
            let on = bits(&out);
            out.fill([f32::NAN; 3]);
            skin_run(isa, &m.palette, inputs, &mut out, 2, false);
            assert!(on == bits(&out), "{}", isa.name());
            let t = prefetch_trial(isa, reach).expect("a SIMD form has prefetch trials");
            assert_eq!(t.vertices, reach.trial_vertices());
            assert_eq!(t.timed.len(), 2);
            assert!(
                t.timed.iter().all(|(_, ns)| *ns > 0.0 && ns.is_finite()),
                "{t:?}"
            );
            let faster = if t.timed[0].1 <= t.timed[1].1 {
                t.timed[0].0
            } else {
                t.timed[1].0
            };
            assert_eq!(t.chosen, faster, "{t:?}");
            assert_eq!(prefetches(isa, n), t.chosen);
            assert!(!prefetches(isa, TrialMesh::VERTICES));
        }
        assert!(prefetch_trial(Isa::Portable, reach).is_none());
    }
}

/// Calls are taken to come from the shared cache from 65536 vertices and from memory past 8 MB
/// of output; smaller ones have no trials.
#[test]
fn a_call_reaches_the_shared_cache_from_65536_vertices_and_memory_past_8_mb() {
    assert_eq!(Reach::of(SHARED_FROM - 1), None);
    assert_eq!(Reach::of(SHARED_FROM), Some(Reach::Shared));
    let memory = STREAM_BYTES / 12 + 1;
    assert_eq!(Reach::of(memory - 1), Some(Reach::Shared));
    assert_eq!(Reach::of(memory), Some(Reach::Memory));
    for isa in Isa::ALL {
        assert!(!prefetches(isa, SHARED_FROM - 1));
        assert_eq!(stream::hint(isa, SHARED_FROM - 1, 2), Ahead::Hardware);
    }
}

/// However a streaming loop reads its inputs ahead, it moves the same bytes: every [`Ahead`]
/// writes the same bits as the family's loop without a hint (each family xors in its own order)
/// for every traffic, and the static transform the portable one's positions, streaming or not;
/// the bound's trial per reach and traffic times its candidates and takes the fastest, which the
/// loops of that traffic follow at that reach.
#[test]
fn every_way_of_reading_ahead_moves_the_same_bytes_and_the_trials_take_the_fastest() {
    let bits = |v: &[[f32; 3]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mat = Mat4::from_rotation_y(0.4) * Mat4::from_translation(glam::Vec3::new(1.0, 2.0, 3.0));
    for (reach, n) in REACHES {
        let m = TrialMesh::of(n);
        let weights: Vec<[u32; 4]> = m.weights.iter().map(|w| w.map(f32::to_bits)).collect();
        let streams: [&[[u32; 4]]; 2] = [&m.joints, &weights];
        let mut want_static = vec![[0f32; 3]; n];
        transform_with(Isa::Portable, &mat, &m.positions, &mut want_static, 1);
        assert_eq!(stream::hint(Isa::Portable, n, 2), Ahead::Hardware);
        for isa in Isa::SIMD.into_iter().filter(|i| i.is_supported()) {
            let mut out = vec![[f32::NAN; 3]; n];
            for wide in 0..=2 {
                let w = &streams[..wide];
                out.fill([f32::NAN; 3]);
                stream::stream_run(isa, &m.positions, w, &mut out, 2, Ahead::Hardware);
                let want = bits(&out);
                for hint in Ahead::ALL {
                    out.fill([f32::NAN; 3]);
                    stream::stream_run(isa, &m.positions, w, &mut out, 2, hint);
                    assert!(bits(&out) == want, "{} {wide} {hint:?}", isa.name());
                }
                let t = bound_trial(isa, reach, wide).expect("a SIMD form's loop has trials");
                assert_eq!(t.vertices, reach.trial_vertices());
                let timed: Vec<Ahead> = t.timed.iter().map(|(a, _)| *a).collect();
                assert_eq!(timed, Ahead::candidates(reach));
                assert!(
                    t.timed.iter().all(|(_, ns)| *ns > 0.0 && ns.is_finite()),
                    "{t:?}"
                );
                let fastest = (t.timed.iter())
                    .map(|(_, ns)| *ns)
                    .fold(f64::INFINITY, f64::min);
                let first_fastest = t.timed.iter().find(|(_, ns)| *ns == fastest);
                assert_eq!(first_fastest.map(|(a, _)| *a), Some(t.chosen));
                assert_eq!(stream::hint(isa, n, wide), t.chosen);
            }
            assert!(bound_trial(isa, reach, 3).is_none());
            #[cfg(target_arch = "x86_64")]
            for (stream, hint) in [false, true]
                .into_iter()
                .flat_map(|s| Ahead::ALL.map(|h| (s, h)))
            {
                out.fill([f32::NAN; 3]);
                transform_kernel(isa, &mat, &m.positions, &mut out, stream, hint);
                let what = format!("{} {hint:?} streaming {stream}", isa.name());
                assert!(max_abs_diff(&out, &want_static) < 1e-5, "{what}");
            }
        }
        assert!(bound_trial(Isa::Portable, reach, 2).is_none());
    }
}

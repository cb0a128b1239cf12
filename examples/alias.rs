use glam::{Mat4, Quat, Vec3};
use skinproof::bench::fast::{self, AlignedPalette, Isa};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(200_000, |s| s.parse().unwrap());
    let threads: usize = args.get(2).map_or(1, |s| s.parse().unwrap());
    let modes: Vec<String> = args.get(3).map_or(vec!["plain".into(), "w".into()], |s| {
        s.split(',').map(String::from).collect()
    });
    let rounds: usize = args.get(4).map_or(100, |s| s.parse().unwrap());
    let joints = 64;
    let pal: Vec<Mat4> = (0..joints)
        .map(|j| {
            Mat4::from_scale_rotation_translation(
                Vec3::splat(1.0 + j as f32 * 0.01),
                Quat::from_rotation_z(j as f32 * 0.1),
                Vec3::new(j as f32, 0.0, 1.0),
            )
        })
        .collect();
    let aligned = AlignedPalette::from(pal.as_slice());
    let pos: Vec<[f32; 3]> = (0..n).map(|s| [s as f32 * 1e-3, 1.0, 2.0]).collect();
    let jnt: Vec<[u32; 4]> = (0..n)
        .map(|s| {
            let t = ((s * 7919) % (joints - 4)) as u32;
            [t, t + 1, t + 3, t + 2]
        })
        .collect();
    let wts: Vec<[f32; 4]> = (0..n)
        .map(|s| {
            let a = (s % 5) as f32 * 0.05;
            [0.4 - a, 0.3, 0.2 + a, 0.1]
        })
        .collect();
    let mut out = vec![[0f32; 3]; n];
    let mut refo = vec![[0f32; 3]; n];
    fast::skin_with(Isa::Avx2Fma, &aligned, &pos, &jnt, &wts, &mut refo, threads);
    let set = |m: &str| {
        unsafe {
            std::env::remove_var("EXP_NOPF");
            std::env::remove_var("EXP_AHEAD");
        }
        if m == "nopf" {
            unsafe { std::env::set_var("EXP_NOPF", "1") }
        }
        if let Some(a) = m.strip_prefix("a") {
            unsafe { std::env::set_var("EXP_AHEAD", a) }
        }
    };
    for m in &modes {
        set(m);
        out.iter_mut().for_each(|o| *o = [0.0; 3]);
        fast::skin_with(Isa::Avx2Fma, &aligned, &pos, &jnt, &wts, &mut out, threads);
        let bad = out
            .iter()
            .zip(&refo)
            .filter(|(a, b)| {
                a.iter()
                    .zip(b.iter())
                    .any(|(x, y)| (x - y).abs() > 1e-4 * y.abs().max(1.0))
            })
            .count();
        assert!(bad == 0, "{m}: {bad} differ");
    }
    let mut samples: Vec<Vec<f64>> = vec![vec![]; modes.len()];
    for _ in 0..rounds {
        for (i, m) in modes.iter().enumerate() {
            set(m);
            let t = Instant::now();
            fast::skin_with(Isa::Avx2Fma, &aligned, &pos, &jnt, &wts, &mut out, threads);
            samples[i].push(t.elapsed().as_secs_f64());
        }
    }
    let ghz = 3.69;
    for (m, s) in modes.iter().zip(&mut samples) {
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "{m:12} best {:.3} ms ({:.2} cyc/v), median {:.3} ms ({:.2} cyc/v)",
            s[0] * 1e3,
            s[0] * 1e9 * ghz / n as f64,
            s[s.len() / 2] * 1e3,
            s[s.len() / 2] * 1e9 * ghz / n as f64
        );
    }
}

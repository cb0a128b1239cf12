//! The `skinproof` command: merge reports into one cross-vendor matrix; write skinned positions;
//! review and accept goldens; draft a shader's layout profile; print the WGSL a shader is tested as.
//!
//! The subcommands return what they did (notes for stderr, text for stdout) or a typed error;
//! only `main` prints and chooses the exit code.

use std::fmt;
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};
use skinproof::case::{Case, CaseError};
use skinproof::compose::Define;
use skinproof::config::ConfigError;
use skinproof::foreign::Form;
use skinproof::gpu::{AdapterInfo, Context, GpuError, SelectionError};
use skinproof::report::{LoadError, Report};
use skinproof::scene::{Scene, SceneError};
use skinproof::shader::{Shader, ShaderError};

#[derive(Parser)]
#[command(
    name = "skinproof",
    version,
    about = "Merge skinproof reports into one matrix; write skinned positions of a case or model; review and accept the last run's golden images; draft a shader's layout profile; print the WGSL a shader is tested as"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Merge report.json files (CI jobs, backends, nextest shards or rows) into one
    /// case x check x adapter matrix; prints the matrix, or writes it with --out
    Merge(MergeArgs),
    /// Write the skinned positions (glTF skinned space, POSITION order, primitive after primitive) of a model or a case as
    /// little-endian f32 xyz (.bin), or as .obj with faces
    Skin(SkinArgs),
    /// Print the path of the last run's review page (reports/review.html), or open it with --open
    Review(ReviewArgs),
    /// Write the last run's actual images as goldens, with their sidecars, for the trials whose
    /// name contains FILTER (all without one); refused under CI and when the shader or a case file
    /// changed since that run
    Accept(AcceptArgs),
    /// Draft a layout profile for a shader from naga's reading of it (each guess says why) and
    /// check it against the shader; prints it, or writes it beside the shader with --write
    Profile(ProfileArgs),
    /// Print the WGSL the harness builds a shader's pipelines from: the shader composed from its
    /// modules or written from GLSL or SPIR-V, with the stages the harness appends (the text
    /// the line numbers of the suite's messages count in)
    Wgsl(WgslArgs),
}

#[derive(Args)]
struct WgslArgs {
    /// The shader, as SKINPROOF_SHADER names it (.wgsl, GLSL .vert/.comp/.frag, or .spv)
    #[arg(value_name = "SHADER")]
    shader: PathBuf,
    /// Its layout profile (default: <stem>.profile.yaml beside it, if there is one)
    #[arg(long, value_name = "PROFILE.yaml")]
    profile: Option<PathBuf>,
}

#[derive(Args)]
struct ProfileArgs {
    /// The shader to describe (.wgsl, GLSL .vert/.comp/.frag, or .spv)
    #[arg(value_name = "SHADER")]
    shader: PathBuf,
    /// Write the draft as <stem>.profile.yaml beside the shader (refused where one is there)
    #[arg(long)]
    write: bool,
    /// For a shader split into modules: a folder its imports are found in, searched in depth
    /// (repeatable; default: the shader's own folder)
    #[arg(long = "folder", value_name = "DIR")]
    folders: Vec<PathBuf>,
    /// For a shader split into modules, or a GLSL shader: a define it reads, NAME (true) or
    /// NAME=VALUE (true, false or an integer); repeatable. A define not given is left off in the
    /// draft
    #[arg(long = "define", value_name = "NAME[=VALUE]", value_parser = parse_define)]
    defines: Vec<(String, Define)>,
}

/// A `--define` argument: `NAME` or `NAME=VALUE`.
fn parse_define(arg: &str) -> Result<(String, Define), String> {
    let (name, value) = arg.split_once('=').unwrap_or((arg, "true"));
    let named = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !named || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!(
            "`{name}` is not a define's name (letters, digits and _)"
        ));
    }
    let value = match value {
        "true" => Define::Bool(true),
        "false" => Define::Bool(false),
        v => Define::Int(
            v.parse()
                .map_err(|_| format!("`{v}` is not a define's value: true, false or an integer"))?,
        ),
    };
    Ok((name.to_string(), value))
}

#[derive(Args)]
struct ReviewArgs {
    /// Open the page in the desktop's browser (xdg-open, or open on macOS)
    #[arg(long)]
    open: bool,
    /// The reports folder of the run (default: the project's reports/)
    #[arg(long, value_name = "DIR")]
    reports: Option<PathBuf>,
}

#[derive(Args)]
struct AcceptArgs {
    /// Only trials whose name contains this, as `cargo test -- FILTER` selects them, e.g.
    /// `wide_view` or `[vulkan/`
    #[arg(value_name = "FILTER")]
    filter: Option<String>,
    /// The filter is a whole trial name
    #[arg(long, requires = "filter")]
    exact: bool,
    /// The reports folder of the run (default: the project's reports/)
    #[arg(long, value_name = "DIR")]
    reports: Option<PathBuf>,
}

#[derive(Args)]
struct MergeArgs {
    /// Write DIR/REPORT.md, DIR/report.json and DIR/MATRIX.md instead of printing the matrix
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The reports to merge; a file given twice (or a copy) is merged once
    #[arg(value_name = "REPORT.json", required = true)]
    reports: Vec<PathBuf>,
}

#[derive(Args)]
#[command(group(ArgGroup::new("source").required(true).args(["model", "case"])))]
#[command(group(ArgGroup::new("when").args(["time", "rest"])))]
struct SkinArgs {
    /// A skinned glTF 2.0 model (.gltf or .glb); needs --time or --rest
    #[arg(long, value_name = "FILE", requires = "when")]
    model: Option<String>,
    /// The model's mesh to skin (default: its first skinned mesh, all its skinned primitives)
    #[arg(long, value_name = "NAME")]
    mesh: Option<String>,
    /// The model's animation clip, by name or index from 0 (default: the first)
    #[arg(long, value_name = "NAME|INDEX")]
    clip: Option<String>,
    /// Sample the clip at this time
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = seconds)]
    time: Option<f64>,
    /// The model's rest pose instead of a clip
    #[arg(long)]
    rest: bool,
    /// A case file; it sets its model, clip and time (or chain and pose) itself
    #[arg(long, value_name = "CASE.yaml")]
    case: Option<PathBuf>,
    /// The CPU reference, or the GPU compute path on the first adapter (WGPU_BACKEND and
    /// WGPU_ADAPTER_NAME narrow it) with SKINPROOF_SHADER or the default shader
    #[arg(long, value_enum, default_value_t = SkinPath::Cpu)]
    path: SkinPath,
    /// The file to write: .bin (f32 xyz) or .obj (positions and triangles)
    #[arg(long, value_name = "FILE.bin|FILE.obj", value_parser = out_file)]
    out: OutFile,
}

#[derive(Clone, Copy, ValueEnum)]
enum SkinPath {
    Cpu,
    Gpu,
}

#[derive(Clone, Copy)]
enum Format {
    Bin,
    Obj,
}

#[derive(Clone)]
struct OutFile {
    path: PathBuf,
    format: Format,
}

fn seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|t| t.is_finite())
        .ok_or_else(|| format!("`{s}` is not a finite number of seconds"))
}

fn out_file(s: &str) -> Result<OutFile, String> {
    let path = PathBuf::from(s);
    let format = match path.extension().and_then(|e| e.to_str()) {
        Some("bin") => Format::Bin,
        Some("obj") => Format::Obj,
        _ => return Err(format!("{s} must end in .bin or .obj")),
    };
    Ok(OutFile { path, format })
}

fn main() {
    skinproof::config::install_logger();
    let code = match Cli::parse().command {
        Command::Merge(args) => finish(merge(&args).map(|done| {
            print_notes(&done.notes);
            if let Some(matrix) = &done.matrix {
                print_out(matrix);
            }
            Vec::new()
        })),
        Command::Skin(args) => finish(skin(&args)),
        Command::Review(args) => finish(review(&args).map(|page| {
            print_out(&format!("{}\n", page.display()));
            Vec::new()
        })),
        Command::Accept(args) => finish(accept(&args)),
        Command::Profile(args) => finish(profile(&args).map(|(draft, notes)| {
            if let Some(text) = draft {
                print_out(&text);
            }
            notes
        })),
        Command::Wgsl(args) => finish(wgsl(&args)),
    };
    // Without driver teardown, as the conformance runner ends: it has crashed finished processes.
    skinproof::gpu::worker::exit(code)
}

/// The project root from the run's environment (`CARGO_MANIFEST_DIR`, else the current folder),
/// never the path compiled in: goldens, cases and reports are found from it.
fn root() -> PathBuf {
    skinproof::config::project_root()
}

/// The reports folder a command reads: `--reports`, or the project's.
fn reports_dir(given: &Option<PathBuf>) -> PathBuf {
    given.clone().unwrap_or_else(|| root().join("reports"))
}

/// Prints the WGSL the harness builds the shader's pipelines from. Where its profile does not
/// load (a draft with its TODOs left), prints the shader alone as naga writes it, without the
/// profile's defines and modules and without the stages the harness appends, and fails with the
/// profile's error.
fn wgsl(args: &WgslArgs) -> Result<Vec<Note>, Failed<skinproof::shader::ShaderError>> {
    match Shader::load(&args.shader, args.profile.as_deref()) {
        Ok(shader) => {
            print_out(&shader.module_source());
            Ok(Vec::new())
        }
        Err(error @ skinproof::shader::ShaderError::Profile(_)) => {
            let alone = Shader::alone(&args.shader)?;
            print_out(&alone.source);
            Err(Failed {
                notes: vec![Note::Problem(
                    "printed the shader alone, as naga writes it: without its profile's defines and modules, and without the stages the harness appends, because the profile does not load:".into(),
                )],
                error,
            })
        }
        Err(e) => Err(e.into()),
    }
}

/// Why `profile` drafted nothing.
#[derive(Debug, thiserror::Error)]
enum ProfileError {
    #[error("{0}")]
    Read(#[from] ShaderError),
    #[error("{}: {source}", shader.display())]
    Draft {
        shader: PathBuf,
        source: skinproof::draft::DraftError,
    },
    #[error("{}: cannot compose its modules for a draft (give the folders its imports are in with --folder, the defines its modules read with --define):\n{message}", shader.display())]
    Compose { shader: PathBuf, message: String },
    #[error("{} is already there: the draft would replace it (print the draft without --write, or move that file away)", path.display())]
    Exists { path: PathBuf },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Drafts the shader's profile and checks it against the shader: the text to print (none when
/// written), and notes saying how many guesses are left to do and what the check found.
fn profile(args: &ProfileArgs) -> Result<(Option<String>, Vec<Note>), Failed<ProfileError>> {
    let shader = &args.shader;
    let unread = |source| {
        ProfileError::Read(ShaderError::Io {
            path: shader.display().to_string(),
            source,
        })
    };
    let bytes =
        skinproof::file::read_limited(shader, skinproof::file::MAX_SHADER_BYTES).map_err(unread)?;
    let name = shader
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let form = Form::of(shader).map_err(|e| ProfileError::Read(ShaderError::Invalid(e)))?;
    let drafted = if form != Form::Wgsl {
        let (wgsl, how) = translate_for_draft(args, &bytes, form)?;
        skinproof::draft::draft_translated(&name, &wgsl, &how)
    } else {
        let source = skinproof::file::utf8(bytes.clone()).map_err(unread)?;
        let split = skinproof::compose::is_split(&source);
        if split || !args.folders.is_empty() || !args.defines.is_empty() {
            let given = args.defines.iter().cloned().collect();
            let (composed, how) = skinproof::draft::compose(shader, &source, &args.folders, &given)
                .map_err(|e| ProfileError::Compose {
                    shader: shader.clone(),
                    message: e.to_string(),
                })?;
            skinproof::draft::draft_composed(&name, &composed, &how)
        } else {
            skinproof::draft::draft(&name, &source)
        }
    };
    let draft = drafted.map_err(|source| ProfileError::Draft {
        shader: shader.clone(),
        source,
    })?;
    let at = skinproof::profile::beside(shader);
    let mut notes = vec![Note::Problem(format!(
        "drafted a profile for {}: {} field(s) left as TODO",
        shader.display(),
        draft.todos
    ))];
    let checked = Shader::with_profile_text(shader, bytes, &at, &draft.yaml)
        .and_then(|s| s.validate().map(|_| ()));
    notes.push(Note::Problem(match checked {
        Ok(()) => {
            "the draft passes shader::validates; run the suite with it to test the guesses".into()
        }
        Err(e) => format!(
            "the draft does not pass shader::validates yet, which says what to change:\n{e}"
        ),
    }));
    if !args.write {
        return Ok((Some(draft.yaml), notes));
    }
    if at.exists() || at.is_symlink() {
        Err(Failed {
            notes: Vec::new(),
            error: ProfileError::Exists { path: at.clone() },
        })?;
    }
    skinproof::file::write_atomic(&at, draft.yaml.as_bytes()).map_err(|source| {
        ProfileError::Write {
            path: at.clone(),
            source,
        }
    })?;
    notes.push(Note::Problem(format!("wrote {}", at.display())));
    Ok((None, notes))
}

/// A GLSL or SPIR-V shader written as WGSL for its draft: GLSL under the given defines, every
/// other define it reads undefined.
fn translate_for_draft(
    args: &ProfileArgs,
    bytes: &[u8],
    form: Form,
) -> Result<(String, skinproof::draft::Translation), ProfileError> {
    let refused = |why: String| ProfileError::Read(ShaderError::Invalid(why));
    let shader = args.shader.display();
    if !args.folders.is_empty() {
        return Err(refused(format!(
            "{shader}: --folder is for a WGSL shader split into modules; a {} shader is one file",
            form.name()
        )));
    }
    if form == Form::SpirV && !args.defines.is_empty() {
        return Err(refused(format!(
            "{shader}: --define is for a GLSL shader or a WGSL one split into modules; a SPIR-V module is compiled already"
        )));
    }
    let given = args.defines.iter().cloned().collect();
    skinproof::draft::translate(&args.shader, bytes, form, &given).map_err(refused)
}

/// Why `review` has no page to show.
#[derive(Debug, thiserror::Error)]
enum ReviewError {
    #[error("no review page {}: the last run had no golden that differs, is missing or is stale (or no run wrote reports there yet)", page.display())]
    NoPage { page: PathBuf },
    #[error("cannot open {} with {opener}: {source}", page.display())]
    Open {
        page: PathBuf,
        opener: &'static str,
        source: std::io::Error,
    },
}

fn review(args: &ReviewArgs) -> Result<PathBuf, Failed<ReviewError>> {
    let page = reports_dir(&args.reports).join(skinproof::report::review::PAGE);
    if !page.is_file() {
        Err(ReviewError::NoPage { page: page.clone() })?;
    }
    if args.open {
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        let status = std::process::Command::new(opener).arg(&page).status();
        let failed = match status {
            Ok(s) if s.success() => None,
            Ok(s) => Some(std::io::Error::other(format!("it exited with {s}"))),
            Err(e) => Some(e),
        };
        if let Some(source) = failed {
            Err(ReviewError::Open {
                page: page.clone(),
                opener,
                source,
            })?;
        }
    }
    Ok(page)
}

/// Why `accept` wrote nothing.
#[derive(Debug, thiserror::Error)]
enum AcceptError {
    #[error("accept: {0}; a run with goldens to review writes it")]
    Load(LoadError),
    #[error("accept: {0}")]
    Refused(#[from] skinproof::golden::AcceptError),
}

fn accept(args: &AcceptArgs) -> Result<Vec<Note>, Failed<AcceptError>> {
    let reports = reports_dir(&args.reports);
    let set = skinproof::report::ReviewSet::load(&reports).map_err(AcceptError::Load)?;
    let candidates: Vec<skinproof::golden::Candidate> = set
        .rows
        .iter()
        .filter_map(|r| {
            r.outcome
                .review
                .as_ref()
                .map(|review| skinproof::golden::Candidate {
                    trial: skinproof::golden::trial_name(&r.case, &r.adapter),
                    review,
                })
        })
        .collect();
    let ci = skinproof::config::is_ci(std::env::var("CI").ok().as_deref());
    let done = skinproof::golden::accept(
        &root(),
        &reports,
        &set.shader,
        &candidates,
        (args.filter.as_deref(), args.exact),
        ci,
    )
    .map_err(AcceptError::from)?;
    Ok(done
        .into_iter()
        .map(|a| Note::Accepted {
            golden: a.golden,
            trials: a.trials,
        })
        .collect())
}

/// Prints a subcommand's notes, and its error last, with the exit code to match.
fn finish<E: fmt::Display>(result: Result<Vec<Note>, Failed<E>>) -> i32 {
    match result {
        Ok(notes) => {
            print_notes(&notes);
            0
        }
        Err(e) => {
            print_notes(&e.notes);
            eprintln!("skinproof: {}", e.error);
            1
        }
    }
}

/// Writes to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking.
fn print_out(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().write_all(text.as_bytes());
}

fn print_notes(notes: &[Note]) {
    for n in notes {
        eprintln!("skinproof: {n}");
    }
}

/// A line for stderr about what a subcommand did or found; not an error.
enum Note {
    SameReport {
        file: PathBuf,
        first: PathBuf,
    },
    Problem(String),
    Merged {
        reports: usize,
        rows: usize,
        adapters: usize,
        dir: PathBuf,
    },
    SkinningOn(String),
    ContractBroken(ShaderError),
    OutputFault(String),
    Wrote {
        positions: usize,
        out: PathBuf,
    },
    Accepted {
        golden: String,
        trials: Vec<String>,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Note::SameReport { file, first } => write!(
                f,
                "{} is the same report as {}; merged once",
                file.display(),
                first.display()
            ),
            Note::Problem(p) => write!(f, "{p}"),
            Note::Merged {
                reports,
                rows,
                adapters,
                dir,
            } => write!(
                f,
                "merged {reports} reports ({rows} rows, {adapters} adapters) into {}",
                dir.display()
            ),
            Note::SkinningOn(tag) => write!(f, "skinning on {tag}"),
            Note::ContractBroken(e) => write!(f, "warning: {e}"),
            Note::OutputFault(fault) => {
                write!(
                    f,
                    "warning: the compute output breaks the contract: {fault}"
                )
            }
            Note::Accepted { golden, trials } => {
                write!(f, "accepted {golden} from {}", trials.join(", "))
            }
            Note::Wrote { positions, out } => write!(
                f,
                "wrote {positions} skinned positions to {}",
                out.display()
            ),
        }
    }
}

/// A subcommand's error, with the notes it had gathered before failing.
struct Failed<E> {
    notes: Vec<Note>,
    error: E,
}

impl<E> From<E> for Failed<E> {
    fn from(error: E) -> Self {
        Failed {
            notes: Vec::new(),
            error,
        }
    }
}

/// Why `merge` wrote nothing.
#[derive(Debug, thiserror::Error)]
enum MergeError {
    /// `Report::load`'s message names the file.
    #[error(transparent)]
    Load(LoadError),
    #[error("merge: {first}, {other}: one matrix is for one shader")]
    TwoShaders {
        first: Box<Judged>,
        other: Box<Judged>,
    },
    #[error(
        "merge: {first} and {other} both have an adapter tagged `{tag}` but they differ ({}, {} {} against {}, {} {}): one matrix column cannot hold both",
        a.name, a.driver, a.driver_info, b.name, b.driver, b.driver_info
    )]
    TwoAdapters {
        first: String,
        other: String,
        tag: String,
        a: Box<AdapterInfo>,
        b: Box<AdapterInfo>,
    },
    #[error("{}: {source}", dir.display())]
    Write {
        dir: PathBuf,
        source: std::io::Error,
    },
}

/// A report and the shader it judged, for the refusal to merge two shaders.
#[derive(Debug)]
struct Judged {
    file: String,
    shader: String,
    sha256: String,
}

impl fmt::Display for Judged {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let short = &self.sha256[..12.min(self.sha256.len())];
        write!(f, "{} judged {} (sha256 {short})", self.file, self.shader)
    }
}

/// What `merge` did: notes for stderr, and the matrix for stdout when it wrote no folder.
struct Merged {
    notes: Vec<Note>,
    matrix: Option<String>,
}

fn merge(args: &MergeArgs) -> Result<Merged, Failed<MergeError>> {
    let mut notes = Vec::new();
    let mut parts: Vec<(&PathBuf, Report)> = Vec::new();
    let mut seen: Vec<(&PathBuf, String)> = Vec::new();
    for f in &args.reports {
        let report = Report::load(f).map_err(|e| Failed {
            notes: std::mem::take(&mut notes),
            error: MergeError::Load(e),
        })?;
        // The same report twice (a glob that matches a copy) would count its costs twice.
        let text = serde_json::to_string(&report).unwrap_or_default();
        if let Some((first, _)) = seen.iter().find(|(_, t)| *t == text) {
            notes.push(Note::SameReport {
                file: f.clone(),
                first: (*first).clone(),
            });
            continue;
        }
        seen.push((f, text));
        parts.push((f, report));
    }
    let checked = check_one_shader(&parts).and_then(|()| check_adapters(&parts));
    if let Err(error) = checked {
        return Err(Failed { notes, error });
    }
    let merged = Report::merge(parts.into_iter().map(|(_, r)| r).collect());
    notes.extend(merged.problems.iter().cloned().map(Note::Problem));
    let matrix = merged.matrix_markdown();
    let Some(dir) = &args.out else {
        return Ok(Merged {
            notes,
            matrix: Some(matrix),
        });
    };
    let written = merged
        .write(dir)
        .and_then(|_| skinproof::file::write_atomic(&dir.join("MATRIX.md"), matrix.as_bytes()));
    if let Err(source) = written {
        let error = MergeError::Write {
            dir: dir.clone(),
            source,
        };
        return Err(Failed { notes, error });
    }
    notes.push(Note::Merged {
        reports: args.reports.len(),
        rows: merged.rows.len(),
        adapters: merged.adapters.len(),
        dir: dir.clone(),
    });
    Ok(Merged {
        notes,
        matrix: None,
    })
}

/// Reports that judged different shader sources cannot share a matrix.
fn check_one_shader(parts: &[(&PathBuf, Report)]) -> Result<(), MergeError> {
    let known: Vec<&(&PathBuf, Report)> = parts
        .iter()
        .filter(|(_, r)| !r.shader_sha256.is_empty())
        .collect();
    let Some((first, base)) = known.first() else {
        return Ok(());
    };
    let judged = |file: &PathBuf, r: &Report| {
        Box::new(Judged {
            file: file.display().to_string(),
            shader: r.shader.clone(),
            sha256: r.shader_sha256.clone(),
        })
    };
    match known
        .iter()
        .find(|(_, r)| r.shader_sha256 != base.shader_sha256)
    {
        None => Ok(()),
        Some((other, r)) => Err(MergeError::TwoShaders {
            first: judged(first, base),
            other: judged(other, r),
        }),
    }
}

/// One matrix column is one adapter: two reports whose adapters share a tag but not a name and
/// driver (two machines, two Mesa versions) would mix their rows in one column.
fn check_adapters(parts: &[(&PathBuf, Report)]) -> Result<(), MergeError> {
    let mut seen: Vec<(&PathBuf, &AdapterInfo)> = Vec::new();
    for (file, report) in parts {
        for a in &report.adapters {
            let same = |b: &AdapterInfo| {
                (&a.name, &a.driver, &a.driver_info) == (&b.name, &b.driver, &b.driver_info)
            };
            match seen.iter().find(|(_, b)| b.tag == a.tag) {
                Some((first, b)) if !same(b) => {
                    return Err(MergeError::TwoAdapters {
                        first: first.display().to_string(),
                        other: file.display().to_string(),
                        tag: a.tag.clone(),
                        a: Box::new((*b).clone()),
                        b: Box::new(a.clone()),
                    })
                }
                Some(_) => {}
                None => seen.push((file, a)),
            }
        }
    }
    Ok(())
}

/// Why `skin` wrote nothing.
#[derive(Debug, thiserror::Error)]
enum SkinError {
    #[error("skin: {} go with --model; a case file sets its model, clip and time itself", flags.join(", "))]
    ModelFlagsWithCase { flags: Vec<&'static str> },
    #[error("--model: {model}: {source}")]
    ModelPath {
        model: String,
        source: std::io::Error,
    },
    /// A flag's value that the model or the case validation refused.
    #[error("{flag}: {message}")]
    Flag { flag: &'static str, message: String },
    #[error(transparent)]
    Case(#[from] CaseError),
    /// The scene's own message, which names the case file.
    #[error("{0}")]
    Scene(String),
    /// A bad `WGPU_*` setting; the message names the variable.
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// A bad `SKINPROOF_*` setting; the message names the variable.
    #[error(transparent)]
    Settings(#[from] ConfigError),
    #[error("no GPU adapter found{} (see README: scripts/setup-adapters installs the software ones)", narrowed_by(.narrowed))]
    NoAdapter { narrowed: Vec<String> },
    #[error(transparent)]
    Shader(#[from] ShaderError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("{}: {source}", out.display())]
    Write {
        out: PathBuf,
        source: std::io::Error,
    },
}

fn narrowed_by(narrowed: &[String]) -> String {
    if narrowed.is_empty() {
        String::new()
    } else {
        format!(" with {}", narrowed.join(" "))
    }
}

/// The flag that sets a field of the one-off case, if one does.
fn flag_of(field: &str) -> Option<&'static str> {
    match field {
        "model.path" | "model" => Some("--model"),
        "model.mesh" => Some("--mesh"),
        "model.animation" => Some("--clip"),
        "model.time" => Some("--time"),
        _ => None,
    }
}

fn skin(args: &SkinArgs) -> Result<Vec<Note>, Failed<SkinError>> {
    let mut notes = Vec::new();
    let case = match (&args.case, &args.model) {
        (Some(c), _) => {
            let model_flags: Vec<&'static str> = [
                ("--mesh", args.mesh.is_some()),
                ("--clip", args.clip.is_some()),
                ("--time", args.time.is_some()),
                ("--rest", args.rest),
            ]
            .into_iter()
            .filter_map(|(flag, given)| given.then_some(flag))
            .collect();
            if !model_flags.is_empty() {
                Err(SkinError::ModelFlagsWithCase { flags: model_flags })?;
            }
            Case::load(
                c,
                &skinproof::check::Check::ALL.map(skinproof::check::Check::name),
            )
            .map_err(SkinError::from)?
        }
        (None, Some(m)) => model_case(m, args)?,
        (None, None) => unreachable!("clap requires --model or --case"),
    };
    let scene = Scene::from_case(&case).map_err(|e| match e {
        SceneError::Skip(m) | SceneError::Fail(m) => SkinError::Scene(m),
    })?;
    let positions = match args.path {
        SkinPath::Cpu => scene.cpu_posed.clone(),
        SkinPath::Gpu => match gpu_skin(&scene, &mut notes) {
            Ok(p) => p,
            Err(error) => return Err(Failed { notes, error }),
        },
    };
    let out = &args.out;
    let bytes = match out.format {
        Format::Obj => obj(&positions, &scene.mesh.indices).into_bytes(),
        Format::Bin => positions
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    };
    if let Err(source) = skinproof::file::write_atomic(&out.path, &bytes) {
        let error = SkinError::Write {
            out: out.path.clone(),
            source,
        };
        return Err(Failed { notes, error });
    }
    notes.push(Note::Wrote {
        positions: positions.len(),
        out: out.path.clone(),
    });
    Ok(notes)
}

/// The name of the one-off case that `skin --model` builds from its flags.
const COMMAND_LINE: &str = "command-line.yaml";

/// A one-off case over the model, so the same loader and pose code serve the command. The model,
/// mesh and clip are checked here first, so that their errors name the flag that chose them.
fn model_case(m: &str, args: &SkinArgs) -> Result<Case, SkinError> {
    // Absolute but not resolved: messages name the path as the user gave it, not a link's target.
    let path = std::path::absolute(m).map_err(|source| SkinError::ModelPath {
        model: m.to_string(),
        source,
    })?;
    let model = skinproof::model::load(&path, args.mesh.as_deref()).map_err(|e| {
        // A model that loads without the mesh name: the name is what is wrong.
        let flag = if args.mesh.is_some() && skinproof::model::load(&path, None).is_ok() {
            "--mesh"
        } else {
            "--model"
        };
        SkinError::Flag {
            flag,
            message: e.to_string(),
        }
    })?;
    if args.time.is_some() {
        check_clip(&model, args.clip.as_deref())?;
    }
    let mut yaml = format!("model:\n  path: {}\n", json(&path));
    for (field, value) in [("mesh", &args.mesh), ("animation", &args.clip)] {
        if let Some(v) = value {
            yaml += &format!("  {field}: {}\n", json(v));
        }
    }
    if let Some(t) = args.time {
        yaml += &format!("  time: {t}\n");
    }
    // A one-off case has no `expect` entries.
    Case::parse(Path::new(COMMAND_LINE), &yaml, &[]).map_err(|e| match e {
        CaseError::Invalid { field, message, .. } if flag_of(&field).is_some() => SkinError::Flag {
            flag: flag_of(&field).unwrap_or_default(),
            message,
        },
        e => SkinError::Case(e),
    })
}

/// The clip `--clip` names (or the first) exists and can be sampled.
fn check_clip(model: &skinproof::model::Model, clip: Option<&str>) -> Result<(), SkinError> {
    let path = model.path.display();
    if model.clips.is_empty() && clip.is_none() {
        return Err(SkinError::Flag {
            flag: "--time",
            message: format!(
                "{path} has no animations, so there is nothing to sample at a time; give --rest for its rest pose"
            ),
        });
    }
    let wanted = clip.unwrap_or("0");
    let Some(i) = model.clip_index(wanted) else {
        let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
        return Err(SkinError::Flag {
            flag: "--clip",
            message: format!(
                "no clip `{wanted}` in {path}; it has {}",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    format!("{} (or their index from 0)", names.join(", "))
                }
            ),
        });
    };
    if model.clips[i].morph_animated {
        return Err(SkinError::Flag {
            flag: "--clip",
            message: format!(
                "clip `{}` animates the morph target weights of the skinned mesh, which the harness does not sample (it skins the mesh at its default weights); choose another clip or --rest",
                model.clips[i].name
            ),
        });
    }
    Ok(())
}

/// A value as JSON text, which is also a YAML scalar: a path or name with any characters.
fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The scene's posed positions from the GPU compute path on the first selected adapter.
fn gpu_skin(scene: &Scene, notes: &mut Vec<Note>) -> Result<Vec<[f32; 3]>, SkinError> {
    let selection = skinproof::gpu::Selection::from_env()?;
    // Never dropped: the process ends without driver teardown (see `main`).
    let instance = ManuallyDrop::new(skinproof::gpu::adapter::instance(&selection));
    let found = skinproof::gpu::discover(&instance, &selection)
        .into_iter()
        .next()
        .ok_or_else(|| SkinError::NoAdapter {
            narrowed: ["WGPU_BACKEND", "WGPU_ADAPTER_NAME"]
                .into_iter()
                .filter_map(|k| std::env::var(k).ok().map(|v| format!("{k}={v}")))
                .filter(|kv| !kv.ends_with('='))
                .collect(),
        })?;
    let root = &root();
    // A command resolves SKINPROOF_SHADER against the folder it runs in, as its other paths.
    let vars = std::env::vars().map(|(k, v)| {
        if k == "SKINPROOF_SHADER" && !v.is_empty() {
            let absolute = std::path::absolute(&v).map_or(v, |p| p.display().to_string());
            (k, absolute)
        } else {
            (k, v)
        }
    });
    let config = skinproof::config::Config::from_vars(root, vars.collect())?;
    let shader = Shader::load(&config.shader, config.profile.as_deref())?;
    // Only skin_compute runs here: a contract broken elsewhere (the render stage) is worth a word,
    // not a refusal; a compute stage that does not build fails below.
    if let Err(e) = shader.validate() {
        notes.push(Note::ContractBroken(e));
    }
    let ctx = ManuallyDrop::new(Context::new(
        &found.adapter,
        found.info.clone(),
        &shader,
        config.timeout,
    )?);
    notes.push(Note::SkinningOn(found.info.tag.clone()));
    ctx.compute()?;
    let skinned = skinproof::gpu::compute::skin_guarded(&ctx, &scene.posed_palette, &scene.mesh)?;
    if let Some(fault) = &skinned.fault {
        notes.push(Note::OutputFault(fault.to_string()));
    }
    Ok(skinned.positions)
}

/// Wavefront OBJ: one `v` per vertex, one `f` per triangle (1-based).
fn obj(positions: &[[f32; 3]], indices: &[u32]) -> String {
    let mut s = String::from("# skinned positions written by skinproof\n");
    for p in positions {
        s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for t in indices.chunks_exact(3) {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s
}

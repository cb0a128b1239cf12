//! leaf: readings of naga's IR the analyses share: every statement of a function's body (the
//! blocks nested in it too, in order), the functions entry points reach, an integer literal's
//! value.

/// Calls `visit` with every statement of `block`, those of the blocks nested in it too, in order.
pub(crate) fn for_each_statement(block: &naga::Block, visit: &mut impl FnMut(&naga::Statement)) {
    for s in block.iter() {
        for_each_nested(s, visit);
    }
}

/// Calls `visit` with `s`, then with every statement of the blocks nested in it, in order.
pub(crate) fn for_each_nested(s: &naga::Statement, visit: &mut impl FnMut(&naga::Statement)) {
    use naga::Statement as S;
    visit(s);
    match s {
        S::Block(b) => for_each_statement(b, visit),
        S::If { accept, reject, .. } => {
            for_each_statement(accept, visit);
            for_each_statement(reject, visit);
        }
        S::Switch { cases, .. } => cases
            .iter()
            .for_each(|c| for_each_statement(&c.body, visit)),
        S::Loop {
            body, continuing, ..
        } => {
            for_each_statement(body, visit);
            for_each_statement(continuing, visit);
        }
        _ => {}
    }
}

/// The functions of `entries` and every function they call, directly or not.
pub(crate) fn reachable<'m>(
    module: &'m naga::Module,
    entries: &[&'m naga::EntryPoint],
) -> impl Iterator<Item = &'m naga::Function> {
    let roots = (entries.iter()).flat_map(|e| calls(&e.function.body));
    let called: Vec<_> = called(module, roots).collect();
    (entries
        .iter()
        .map(|e| &e.function)
        .collect::<Vec<_>>()
        .into_iter())
    .chain(called.into_iter().map(|h| &module.functions[h]))
}

/// The functions `roots` and every function they call, directly or not, each once.
pub(crate) fn called(
    module: &naga::Module,
    roots: impl IntoIterator<Item = naga::Handle<naga::Function>>,
) -> impl Iterator<Item = naga::Handle<naga::Function>> {
    let mut todo: Vec<_> = roots.into_iter().collect();
    let mut seen: Vec<naga::Handle<naga::Function>> = Vec::new();
    while let Some(h) = todo.pop() {
        if !seen.contains(&h) {
            seen.push(h);
            todo.extend(calls(&module.functions[h].body));
        }
    }
    seen.into_iter()
}

/// The functions `block` calls itself.
pub(crate) fn calls(block: &naga::Block) -> Vec<naga::Handle<naga::Function>> {
    let mut out = Vec::new();
    for_each_statement(block, &mut |s| {
        if let naga::Statement::Call { function, .. } = *s {
            out.push(function);
        }
    });
    out
}

/// An integer literal's value (`3u`, `-1i`, `4`).
pub(crate) fn int_literal(e: &naga::Expression) -> Option<i64> {
    use naga::{Expression, Literal};
    match e {
        Expression::Literal(Literal::U32(v)) => Some(*v as i64),
        Expression::Literal(Literal::I32(v)) => Some(*v as i64),
        Expression::Literal(Literal::AbstractInt(v)) => Some(*v),
        _ => None,
    }
}

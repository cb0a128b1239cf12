//! leaf: readings of naga's IR the analyses share: every statement of a function's body (the
//! blocks nested in it too, in order), an integer literal's value.

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

#[cfg(test)]
pub mod test;

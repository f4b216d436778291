// A WASI command in Rust: it prints its arguments and the variable WHO,
// computes a value with a vector, and exits with status 3 when given
// more than one argument.
use std::env;

fn main() {
    let args: Vec<String> = env::args().collect();
    println!("hello from {} (Rust)", args[0]);
    for (i, a) in args.iter().enumerate().skip(1) {
        println!("arg {}: {}", i, a);
    }
    if let Ok(who) = env::var("WHO") {
        println!("WHO={}", who);
    }
    let squares: Vec<u64> = (1..=10).map(|x| x * x).collect();
    println!("the squares of 1 to 10 add up to {}", squares.iter().sum::<u64>());
    std::process::exit(if args.len() > 2 { 3 } else { 0 });
}

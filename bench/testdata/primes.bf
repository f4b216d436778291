Primes below 200 by trial division

For every n from 2 to 199 this prints a star when n is prime and a dot
when it is not; then a newline  Every d from 2 to n minus 1 is tried and
divisibility is found by counting: a counter b starts at d and steps
down once for each of n steps; when it reaches zero it is reloaded with d
and flag r is set; any other step clears r  After the n steps r is set
exactly when d divides n  The innermost loop holds a conditional so that
a compiler cannot replace it by a formula; the program is meant to run
long enough to be timed

Cells
  0  n values left        1  n
  2  d values left        3  d
  4  divisors found       5  steps left
  6  b                    7  f (one before the zero test)
  8  always zero          9  r
  10 scratch             11  the character to print

>>>>>>>>>>++++++++++++++++++++     twenty in cell 10
[<<<<<<<<<<++++++++++>>>>>>>>>>-]  times ten in cell 0
<<<<<<<<<<--                  198 values of n (2 to 199)
>+<                           n starts at 1
[
  >+                          next n
  [->+>>>>>>>>+<<<<<<<<<]     copy n to cell 2 and cell 10
  >>>>>>>>>[-<<<<<<<<<+>>>>>>>>>]   and cell 10 back to n
  <<<<<<<<--                  n minus 2 values of d
  >+<                         d starts at 1
  [
    >+                        next d
    <<[->>>>+>>>>>+<<<<<<<<<] copy n to cell 5 and cell 10
    >>>>>>>>>[-<<<<<<<<<+>>>>>>>>>]   and cell 10 back to n
    <<<<<<<[->>>+>>>>+<<<<<<<]        copy d to b and cell 10
    >>>>>>>[-<<<<<<<+>>>>>>>]         and cell 10 back to d
    <<<<<
    [                         n steps
      -                       one step less
      >-                      b steps down
      >>>[-]                  r is cleared
      <<+                     f is set
      <[>-]>                  if b is not zero clear f and stand on cell 8
      [                       else (standing on f)
        -                     clear f
        <<<<[->>>+>>>>+<<<<<<<]       copy d to b and cell 10
        >>>>>>>[-<<<<<<<+>>>>>>>]     and cell 10 back to d
        <+                    r is set
        <                     stand on cell 8
      ]
      <<<
    ]
    >>>>[-<<<<<+>>>>>]        add r to the divisors found
    <<<[-]                    clear b
    <<<<-                     one d value less
  ]
  >>>>>>>>++++++[>+++++++<-]  star is six times seven
  <<<<<<[>>>>>>>++++<<<<<<<[-]]   a dot is four more when a divisor was found
  >>>>>>>.[-]                 print it
  <<<<<<<<[-]                 clear d
  <<<-                        one n value less
]
>>>>>>>>>>>++++++++++.        newline

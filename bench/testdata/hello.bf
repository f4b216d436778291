Hello World

Five cells get 70 100 110 30 and 10 from one loop that runs ten times
then each character is an adjustment of the nearest cell and a print

++++++++++
[>+++++++>++++++++++>+++++++++++>+++>+<<<<<-]
>++.                  H
>+.                   e
>--..                 l l
+++.                  o
>++++++++++++++.      comma
------------.         space
<<<+++++++++++++++.   W
>>.                   o
+++.                  r
------.               l
--------.             d
>+.                   exclamation mark
>.                    newline

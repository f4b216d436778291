A triangle of stars with eight rows: row k has k stars

Cells: 0 rows left  1 stars in this row  2 and 3 copies of cell 1
       4 star  5 newline

++++++++                  eight rows
>>>>>++++++[<+++++++>-]   star is six times seven
++++++++++                newline is ten
<<<<<
[
  >+                      one more star in this row
  [>+>+<<-]>[<+>-]        copy cell 1 to cell 3 by way of cell 2
  >[>.<-]                 print that many stars
  >>.                     end the row
  <<<<<-                  one row less to go
]

Reverse the input and end it with a newline

Cell 0 stays zero and marks the left end of the stored input
At the end of the input a read leaves the cell unchanged so the last
cell read stays zero and the loop stops

>,[>,]        store every byte of the input in cells 1 and up
<[.<]         print them back from the last to the first
++++++++++.   newline from the zero cell at the left end

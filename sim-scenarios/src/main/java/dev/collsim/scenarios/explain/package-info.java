/** The teaching view: a collective's schedule transfer by transfer, and the alpha-beta model beside the simulation. */
package dev.collsim.scenarios.explain;
